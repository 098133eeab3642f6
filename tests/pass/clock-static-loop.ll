; A loop with a constant trip count whose whole run fits under B needs no probe at all.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -S %s | FileCheck %s
; With B = 40 the same 16-iteration loop no longer fits and gets strided (the mask form: a
; counted loop normally shares its exit compare instead, clock-loop-exit-merge.ll).
; RUN: %opt -passes=quanta-clock -quanta-bound=40 -quanta-adaptive=0 -quanta-merge-exit=0 -S %s | FileCheck %s --check-prefix=SMALLB

; CHECK-LABEL: define i64 @sum16(
; CHECK-NOT: readcyclecounter
; CHECK-NOT: quanta.
; CHECK: ret i64
; SMALLB-LABEL: define i64 @sum16(
; SMALLB: quanta.stride = and i64 %quanta.iters, 7
; SMALLB: readcyclecounter
define i64 @sum16(ptr %a) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  %v = load i64, ptr %p
  %s.next = add i64 %s, %v
  %i.next = add nuw i64 %i, 1
  %end = icmp eq i64 %i.next, 16
  br i1 %end, label %done, label %loop
done:
  ret i64 %s.next
}
