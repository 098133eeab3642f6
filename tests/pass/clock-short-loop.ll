; Short-loop fast path: the trip count (n) is known on entry, so the loop is versioned.
; If n * cost fits under B the probe-free clone runs; otherwise the original runs, strided
; on its induction variable (every 128 iterations). Body cost 6 (load 2, add, add, compare,
; branch), B = 600: the fast path takes n <= 100.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-adaptive=0 -quanta-merge-exit=0 -S %s | FileCheck %s

; CHECK-LABEL: define i64 @sum(
; CHECK: %quanta.short = icmp ult i64 %{{.*}}, 100
; CHECK-NEXT: br i1 %quanta.short, label %loop.quanta.ph.quanta.fast, label %loop.quanta.ph
;   the clone: no probe at all
; CHECK: loop.quanta.fast:
; CHECK-NOT: readcyclecounter
; CHECK-NOT: quanta.iters
; CHECK: br i1 %{{.*}}, label %done.loopexit, label %loop.quanta.fast
;   the original loop, strided on i
; CHECK: loop:
; CHECK: %quanta.iters = sub i64 %i.next, 0
; CHECK: and i64 %quanta.iters, 127
; CHECK: call i64 @llvm.readcyclecounter()
;   both versions leave through the same LCSSA phi
; CHECK: done.loopexit:
; CHECK-NEXT: phi i64 [ %s.next, %{{.*}} ], [ %s.next.quanta.fast, %loop.quanta.fast ]
define i64 @sum(ptr %a, i64 %n) {
entry:
  %none = icmp eq i64 %n, 0
  br i1 %none, label %done, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  %v = load i64, ptr %p
  %s.next = add i64 %s, %v
  %i.next = add nuw i64 %i, 1
  %end = icmp eq i64 %i.next, %n
  br i1 %end, label %done, label %loop
done:
  %r = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  ret i64 %r
}
