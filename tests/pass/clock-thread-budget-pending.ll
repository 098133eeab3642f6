; A loop on the thread's budget (it calls back into its own call-graph cycle) whose
; optional block charges a register, not quanta_tick_budget: consecutive read-modify-writes
; of one thread-local word wait on each other through store-to-load forwarding. The sum
; reaches the word before the next call (a callee may tick or check the word) and with
; the latch's own charge; where nothing can be pending (the recursive call, right after
; the flush; the exit, right after the latch's check) no flush is left.
; RUN: %opt -passes='print<quanta-plan>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=PLAN
; RUN: %opt -passes=quanta-clock -quanta-adaptive=0 -S %s | FileCheck %s
; Adaptive (the default), the latch's check takes its refill from the runtime, nothing
; charged ahead of the read (the iteration ran before it), as the tick the recursive call
; owes, at the loop's exit (6: what the last iteration runs after the call and the return),
; does with its charge ahead.
; RUN: %opt -passes=quanta-clock -S %s | FileCheck %s --check-prefix=ADAPT
; ADAPT-LABEL: define i64 @walk(
; ADAPT: %r = call i64 @walk(
; ADAPT-NEXT: %acc.next
; ADAPT: %quanta.left = sub i64
; ADAPT: %quanta.fire = icmp slt i64 %quanta.left, 0
; ADAPT-NEXT: store i64 %quanta.left, ptr
; ADAPT: call void @quanta_tick_gap(i64 0, i64 1000, i64 64000, i64 8192)
; ADAPT: exit:
; ADAPT: %quanta.tick{{[0-9]+}} = sub i64 %{{[0-9]+}}, 6
; ADAPT-NEXT: %quanta.tickout{{[0-9]+}} = icmp slt
; ADAPT-NEXT: store i64 %quanta.tick{{[0-9]+}}, ptr
; ADAPT: call void @quanta_tick_gap(i64 6, i64 1000, i64 64000, i64 8192)
; ADAPT-NOT: readcyclecounter
; ADAPT: ret i64

; PLAN: function walk: entry tick
; PLAN-NEXT: loop loop: Counter {{.*}}budget=thread charge=61

; CHECK-LABEL: define i64 @walk(
; CHECK: rare:
; CHECK-NOT: quanta_tick_budget
; CHECK: %quanta.charge = add i64 0, 5
; CHECK-NEXT: br label %mid
; CHECK: mid:
; CHECK-NEXT: %quanta.pending.1 = phi i64 [ %quanta.charge, %rare ], [ 0, %loop ]
; CHECK-NEXT: %x = phi
; CHECK-NEXT: [[A:%[0-9]+]] = call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; CHECK-NEXT: [[L:%[0-9]+]] = load i64, ptr [[A]]
; CHECK-NEXT: %quanta.flush = sub i64 [[L]], %quanta.pending.1
; CHECK-NEXT: store i64 %quanta.flush, ptr [[A]]
; CHECK-NEXT: call void @ext(
; CHECK-NEXT: %r = call i64 @walk(
; CHECK-NEXT: %acc.next
; CHECK: %quanta.left = sub i64
; CHECK: exit:
; CHECK: %quanta.tick{{[0-9]+}} = sub i64 %{{[0-9]+}}, 6
; CHECK-NOT: quanta.flush
; CHECK: ret i64

declare void @ext(i64)

define i64 @walk(ptr %t, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %acc = phi i64 [ 0, %entry ], [ %acc.next, %latch ]
  %p = getelementptr i64, ptr %t, i64 %i
  %v = load i64, ptr %p
  %odd = and i64 %v, 1
  %c = icmp eq i64 %odd, 0
  br i1 %c, label %rare, label %mid
rare:
  %a = mul i64 %v, 3
  %b = add i64 %a, 7
  %d = xor i64 %b, %v
  store i64 %d, ptr %p
  br label %mid
mid:
  %x = phi i64 [ %v, %loop ], [ %d, %rare ]
  call void @ext(i64 %x)
  %r = call i64 @walk(ptr %t, i64 %x)
  %acc.next = add i64 %acc, %r
  br label %latch
latch:
  %i.next = add i64 %i, 1
  %e = icmp ult i64 %i.next, %n
  br i1 %e, label %loop, label %exit
exit:
  ret i64 %acc.next
}
