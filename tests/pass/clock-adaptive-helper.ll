; The adaptive loop probe's helper (AdaptiveProbe.cpp), one per module, private and out of
; line. It reads the clock and the deadline, yields through quanta_probe_slow() once the
; deadline has passed, and plans the next gap: what is left to the deadline (capped by
; -quanta-probe-max-cycles), times the
; units the last gap ran, over the cycles it took, plus one; at most 4x the last gap and at
; most the site's maximum; the static gap while the rate is unknown (start word 0). The speed
; it plans with is the last gap's, or the one before when that was clearly (1.5x) slower.
; After a yield the planning reads the clock and the deadline again in a second function,
; out of line: the task may resume on another thread.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-probe-max-cycles=4096 -S %s | FileCheck %s

; CHECK-LABEL: define private i64 @__quanta_clock_gap_resumed(ptr %0, i64 %1, i64 %2, i64 %3, i64 %4)
; CHECK: call i64 @llvm.readcyclecounter()
; CHECK: @llvm.threadlocal.address.p0(ptr @quanta_deadline_tsc)

; CHECK-LABEL: define private i64 @__quanta_clock_gap(ptr %0, i64 %1, i64 %2, i64 %3)
; CHECK: [[NOW:%.*]] = call i64 @llvm.readcyclecounter()
; CHECK: [[DL:%.*]] = load i64, ptr
; CHECK: [[LATE:%.*]] = icmp uge i64 [[NOW]], [[DL]]
; CHECK-NEXT: br i1 [[LATE]], label %[[YIELD:.*]], label %[[PLAN:.*]]
; CHECK: [[YIELD]]:
; CHECK-NEXT: call void @quanta_probe_slow()
; CHECK-NEXT: [[G:%.*]] = call i64 @__quanta_clock_gap_resumed(ptr %0, i64 [[NOW]], i64 %1, i64 %2, i64 %3)
; CHECK-NEXT: ret i64 [[G]]
; CHECK: [[PLAN]]:
; CHECK: call i64 @llvm.umin.i64(i64 %{{.*}}, i64 4096)
; CHECK: [[A:%.*]] = mul i64 %{{.*}}, 2
; CHECK: [[B:%.*]] = mul i64 %{{.*}}, 3
; CHECK: icmp ugt i64 [[A]], [[B]]
; CHECK: udiv i64
; CHECK: mul i64 %{{.*}}, 4
; CHECK: call i64 @llvm.umin.i64(i64 %{{.*}}, i64 %2)
; CHECK: select i1 %{{.*}}, i64 %{{.*}}, i64 %1
; CHECK: attributes #{{[0-9]+}} = { cold noinline nounwind }

define i64 @scan(ptr %base, i64 %start) {
entry:
  br label %loop
loop:
  %off = phi i64 [ %start, %entry ], [ %off.next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr inbounds i8, ptr %base, i64 %off
  %v = load i32, ptr %p
  %w = sext i32 %v to i64
  %acc.next = add i64 %acc, %w
  %off.next = add i64 %off, 4
  %stop = icmp eq i32 %v, 0
  br i1 %stop, label %done, label %loop
done:
  ret i64 %acc.next
}
