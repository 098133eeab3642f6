; A loop that charges the thread's tick budget (it calls back into its own call-graph
; cycle, so a tick follows the call) around a loop with a trip count known at entry: the
; inner loop's probe-free clone tells the parent's budget what it ran (trip × 4), and the
; strided original charges the iterations of each entry on its exit (fixed strides,
; -quanta-adaptive=0), both to the thread's budget, the one the parent checks, not to a
; function budget that no check of the parent would see. No function budget is made.
; The charges add up in a register (quanta.pending): the parent's latch check subtracts
; them from quanta_tick_budget with its own, and the loop's exit subtracts what is left;
; the call, right after the check, has nothing pending and no flush before it.
; RUN: %opt -passes='print<quanta-plan>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=PLAN
; RUN: %opt -passes=quanta-clock -quanta-adaptive=0 -S %s | FileCheck %s

; PLAN: function rec: entry tick
; PLAN-NEXT: loop outer: Counter {{.*}}budget=thread charge=5
; PLAN-NEXT: loop inner: Version (long trips: IVStride)

; CHECK-LABEL: define i64 @rec(
; CHECK-NOT: quanta.budget
; CHECK: outer:
; CHECK-NEXT: %quanta.pending.0 = phi i64 [ 0, %{{[0-9]+}} ], [ %quanta.pending.1, %outer.latch ]
; CHECK: [[SUM:%[0-9]+]] = add i64 5, %quanta.pending.0
; CHECK-NEXT: %quanta.left = sub i64 %{{[0-9]+}}, [[SUM]]
; CHECK-NOT: quanta.flush
; CHECK: call i64 @rec(
; CHECK: %quanta.fastcost = mul i64 %{{[0-9]+}}, 4
; CHECK-NEXT: %quanta.charge = add i64 0, %quanta.fastcost
; CHECK: %quanta.entry.cost = mul i64 %{{[0-9]+}}, 4
; CHECK-NEXT: %quanta.charge{{[0-9]+}} = add i64 %quanta.charge{{[0-9]+}}, %quanta.entry.cost
; CHECK-NOT: quanta_tick_budget
; CHECK: outer.latch:
; CHECK-NEXT: %quanta.pending.1 = phi i64
; CHECK: exit:
; CHECK-NEXT: %r.lcssa = phi
; CHECK-NEXT: [[A:%[0-9]+]] = call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; CHECK-NEXT: [[L:%[0-9]+]] = load i64, ptr [[A]]
; CHECK-NEXT: %quanta.flush{{[0-9]*}} = sub i64 [[L]], %quanta.pending.1
; CHECK-NEXT: store i64 %quanta.flush{{[0-9]*}}, ptr [[A]]
; CHECK-NOT: quanta.budget
; CHECK: ret i64

define i64 @rec(ptr %p, i64 %n, i64 %m) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %r = call i64 @rec(ptr %p, i64 %i, i64 %m)
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %q = getelementptr i64, ptr %p, i64 %j
  store i64 %j, ptr %q
  %j.next = add i64 %j, 1
  %c = icmp ult i64 %j.next, %m
  br i1 %c, label %inner, label %outer.latch
outer.latch:
  %i.next = add i64 %i, 1
  %c2 = icmp ult i64 %i.next, %n
  br i1 %c2, label %outer, label %exit
exit:
  ret i64 %r
}
