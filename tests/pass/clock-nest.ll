; A nest: the inner loop (trip count m, known at entry) is versioned; its fast path adds
; m * cost from the function-wide budget, and the outer loop, whose trip count is unknown,
; subtracts what every iteration costs (24: header 2 + latch 22, where the r = *r pointer
; load counts 20) and checks the budget once per iteration, at the top of its header (two
; paths meet at its latch, see clock-lopsided-loop.ll). The two blocks around the inner
; loop (1 each) do not run on every iteration, but the branch estimates say most do: the
; header's subtract charges them too (26), so they subtract nothing where they run (see
; clock-likely-at-latch.ll). So a run of short inner loops still reaches a probe after
; about B instructions in total.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -S %s | FileCheck %s

; CHECK-LABEL: define i64 @rows(
; CHECK: outer:
; CHECK-NEXT: %quanta.budget{{.*}} = phi i64 [ 600, %entry ]
; CHECK: sub i64 %quanta.budget{{.*}}, 26
; CHECK-NEXT: %quanta.fire{{.*}} = icmp slt i64 %{{.*}}, 0
; CHECK: call i64 @quanta_clock_gap(
; CHECK: %quanta.short = icmp ult i64
; CHECK-NEXT: br i1 %quanta.short
; CHECK: inner.quanta.ph.quanta.fast:
; CHECK: %quanta.fastcost = mul i64 %{{.*}}, 6
; CHECK: inner.quanta.fast:
; CHECK-NOT: readcyclecounter
; CHECK: br i1 %{{.*}}, label %outer.latch.loopexit, label %inner.quanta.fast
; CHECK: outer.latch:
; CHECK-NOT: sub i64 %quanta.budget
define i64 @rows(ptr %a, ptr %rows, i64 %m) {
entry:
  br label %outer
outer:
  %r = phi ptr [ %rows, %entry ], [ %r.next, %outer.latch ]
  %acc = phi i64 [ 0, %entry ], [ %acc.next, %outer.latch ]
  %has = icmp ne i64 %m, 0
  br i1 %has, label %inner, label %outer.latch
inner:
  %i = phi i64 [ 0, %outer ], [ %i.next, %inner ]
  %s = phi i64 [ %acc, %outer ], [ %s.next, %inner ]
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  %v = load i64, ptr %p
  %s.next = add i64 %s, %v
  %i.next = add nuw i64 %i, 1
  %end = icmp eq i64 %i.next, %m
  br i1 %end, label %outer.latch, label %inner
outer.latch:
  %acc.next = phi i64 [ %acc, %outer ], [ %s.next, %inner ]
  %r.next = load ptr, ptr %r
  %stop = icmp eq ptr %r.next, null
  br i1 %stop, label %done, label %outer
done:
  ret i64 %acc.next
}
