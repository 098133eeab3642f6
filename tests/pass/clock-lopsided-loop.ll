; A loop whose common path is cheap and whose rare branch is expensive (here 4 calls to
; code the pass does not see, 50 each): striding on the longest path would probe every few
; iterations of the cheap path. Instead the budget is charged per path: what every
; iteration runs (8) is subtracted and checked once per iteration, the expensive block
; subtracts its own cost (201) where it runs, and the probe fires once the budget is spent.
; Two paths meet at the latch, so the per-iteration check goes to the top of the header
; (one taken jump fewer on the cheap path than a block of its own on the back-edge).
; RUN: %opt -passes=quanta-clock -quanta-bound=1000 -S %s | FileCheck %s

declare void @ext(i64)

; CHECK-LABEL: define i64 @scan(
; CHECK: loop:
; CHECK-NEXT: %quanta.budget{{.*}} = phi i64
; CHECK-NEXT: %i = phi
; CHECK-NEXT: %s = phi
; CHECK-NEXT: sub i64 %quanta.budget{{.*}}, 8
; CHECK-NEXT: %quanta.fire = icmp slt i64
; CHECK: rare:
; CHECK: sub i64 %quanta.budget{{.*}}, 201
; CHECK: latch:
; CHECK-NOT: sub i64 %quanta.budget
; CHECK: br i1 %done, label %exit, label %loop
; CHECK-NOT: %quanta.stride
define i64 @scan(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %latch ]
  %p = getelementptr inbounds i8, ptr %a, i64 %i
  %c = load i8, ptr %p
  %nl = icmp eq i8 %c, 10
  br i1 %nl, label %rare, label %latch
rare:
  call void @ext(i64 %i)
  call void @ext(i64 %s)
  call void @ext(i64 %i)
  call void @ext(i64 %s)
  br label %latch
latch:
  %s.next = add i64 %s, 1
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %s.next
}
