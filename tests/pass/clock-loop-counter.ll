; A loop without an induction variable (pointer chasing) is strided with the function-wide
; budget: it starts at B (600), each back-edge subtracts the body cost and the clock is
; read only when the budget goes negative, then refilled. The body costs 25: the
; p = p->next load counts 20 (a dependent, likely-missing load), the value load 2, the
; add, compare and branch 1 each. So the clock is read every 25 iterations (fixed refill,
; -quanta-adaptive=0, and flag mode's rule). The check sits on the back-edge, after the
; loop's own exit test.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-adaptive=0 -S %s | FileCheck %s
; With adaptation the refill is quanta_clock_gap()'s next gap in cost units (600 until the loop's
; speed is known, at most 64 * 600, at most 8192 cycles), told how far below zero the
; budget went.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -S %s | FileCheck %s --check-prefix=ADAPT

%node = type { ptr, i64 }

; CHECK-LABEL: define i64 @chase(
; CHECK: loop:
; CHECK-NEXT: [[B:%quanta.budget.*]] = phi i64 [ 600, %{{.*}} ], [ [[NEXT:%.*]], %{{.*}} ]
; CHECK: br i1 %end, label %done.loopexit, label %[[EDGE:.*]]
; CHECK: [[EDGE]]:
; CHECK-NEXT: [[LEFT:%.*]] = sub i64 [[B]], 25
; CHECK-NEXT: %quanta.fire = icmp slt i64 [[LEFT]], 0
; CHECK-NEXT: br i1 %quanta.fire, label %[[PROBE:.*]], label %[[CONT:.*]], !prof
; CHECK: [[PROBE]]:
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK: [[CONT]]:
; CHECK-NEXT: [[NEXT]] = phi i64 [ 600, %{{.*}} ], [ [[LEFT]], %[[EDGE]] ]
; ADAPT-LABEL: define i64 @chase(
; ADAPT: loop:
; ADAPT-NEXT: [[B:%quanta.budget.*]] = phi i64 [ 600, %{{.*}} ], [ [[NEXT:%.*]], %{{.*}} ]
; ADAPT: br i1 %end, label %done.loopexit, label %[[EDGE:.*]]
; ADAPT: [[EDGE]]:
; ADAPT-NEXT: [[LEFT:%.*]] = sub i64 [[B]], 25
; ADAPT-NEXT: %quanta.fire = icmp slt i64 [[LEFT]], 0
; ADAPT-NEXT: br i1 %quanta.fire, label %[[PROBE:.*]], label %[[CONT:.*]], !prof
; ADAPT: [[PROBE]]:
; ADAPT-NEXT: [[OVER:%.*]] = sub i64 0, [[LEFT]]
; ADAPT-NEXT: %quanta.gap.next = call i64 @quanta_clock_gap(ptr %quanta.gap, i64 600, i64 38400, i64 [[OVER]], i64 8192)
; ADAPT: [[CONT]]:
; ADAPT-NEXT: [[NEXT]] = phi i64 [ %quanta.gap.next, %[[PROBE]] ], [ [[LEFT]], %[[EDGE]] ]
define i64 @chase(ptr %p) {
entry:
  %empty = icmp eq ptr %p, null
  br i1 %empty, label %done, label %loop
loop:
  %cur = phi ptr [ %p, %entry ], [ %next, %loop ]
  %sum = phi i64 [ 0, %entry ], [ %sum.next, %loop ]
  %vp = getelementptr inbounds %node, ptr %cur, i64 0, i32 1
  %v = load i64, ptr %vp
  %sum.next = add i64 %sum, %v
  %next = load ptr, ptr %cur
  %end = icmp eq ptr %next, null
  br i1 %end, label %done, label %loop
done:
  %r = phi i64 [ 0, %entry ], [ %sum.next, %loop ]
  ret i64 %r
}
