; A call that may return from a tick inside a loop on the thread's budget owes a tick to the
; first block its path reaches outside such loops, where the loop's own blocks stop charging
; what runs (clock-call-ticks.ll has the loop exit). Here the path after the call enters an
; inner loop of its own plan in the same iteration. @f's inner loop counts its iterations
; (Version): the tick goes in its preheader, once per entry, not in its header, and charges
; what the iteration ran since the call and what follows up to the inner loop's probes (12).
; @g's inner loop is Static: its whole run is charged where it is entered (the outer loop's
; block), so the path stays in the outer loop and the tick is owed to the exit (30: the
; rest of the last iteration, the Static run included, and the return).
; RUN: %opt -passes=quanta-clock -pass-remarks=quanta -disable-output %s 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: %opt -passes=quanta-clock -quanta-adaptive=0 -S %s | FileCheck %s

; REMARK: tick leaving the loop, charge 12: a call in it may return from a tick
; REMARK: tick leaving the loop, charge 30: a call in it may return from a tick

; CHECK-LABEL: define i64 @f(
; CHECK: %r = call i64 @f(
; CHECK-NEXT: %acc1 = add i64 %acc, %r
; CHECK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; CHECK: %quanta.tick{{[0-9]+}} = sub i64 %{{[0-9]+}}, 12
; CHECK: inner:
; CHECK-NOT: quanta.tick
; CHECK: exit:
; CHECK-LABEL: define i64 @g(
; CHECK: %r = call i64 @g(
; CHECK-NOT: quanta.tick
; CHECK: exit:
; CHECK: %quanta.tick{{[0-9]+}} = sub i64 %{{[0-9]+}}, 30

define i64 @f(ptr %t, i64 %n, i64 %m) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %acc = phi i64 [ 0, %entry ], [ %acc2, %outer.latch ]
  %r = call i64 @f(ptr %t, i64 %i, i64 %m)
  %acc1 = add i64 %acc, %r
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %s = phi i64 [ %acc1, %outer ], [ %s.next, %inner ]
  %p = getelementptr i64, ptr %t, i64 %j
  %v = load i64, ptr %p
  %s.next = add i64 %s, %v
  %j.next = add i64 %j, 1
  %c = icmp ult i64 %j.next, %m
  br i1 %c, label %inner, label %outer.latch
outer.latch:
  %acc2 = phi i64 [ %s.next, %inner ]
  %i.next = add i64 %i, 1
  %e = icmp ult i64 %i.next, %n
  br i1 %e, label %outer, label %exit
exit:
  ret i64 %acc2
}

define i64 @g(ptr %t, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %acc = phi i64 [ 0, %entry ], [ %acc2, %outer.latch ]
  %r = call i64 @g(ptr %t, i64 %i)
  %acc1 = add i64 %acc, %r
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %s = phi i64 [ %acc1, %outer ], [ %s.next, %inner ]
  %p = getelementptr i64, ptr %t, i64 %j
  %v = load i64, ptr %p
  %s.next = add i64 %s, %v
  %j.next = add i64 %j, 1
  %c = icmp ult i64 %j.next, 4
  br i1 %c, label %inner, label %outer.latch
outer.latch:
  %acc2 = phi i64 [ %s.next, %inner ]
  %i.next = add i64 %i, 1
  %e = icmp ult i64 %i.next, %n
  br i1 %e, label %outer, label %exit
exit:
  ret i64 %acc2
}
