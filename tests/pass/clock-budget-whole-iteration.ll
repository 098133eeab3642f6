; An adaptive budget whose loop is not lopsided (what every iteration runs costs at least
; half its longest iteration) charges the whole longest iteration at the latch, and its
; optional blocks nothing, however likely: `common` (50/50 by the estimates) and `rare`
; (1 in 1000 by its branch weights) subtract nothing where they run, and the latch
; subtracts the iteration cost. One subtract per iteration; an iteration that skips both
; is over-charged at most twice, which only brings the first gap's probe earlier (later
; gaps are planned in time). Fixed strides keep every optional block's own subtract, and
; a lopsided loop keeps its rare path's (clock-likely-at-latch.ll).
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -S %s | FileCheck %s
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-adaptive=0 -S %s | FileCheck %s --check-prefix=FIXED
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -pass-remarks=quanta -disable-output %s 2>&1 | FileCheck %s --check-prefix=REMARK

; REMARK: loop outer: Counter iter-cost=[[C:[0-9]+]] bound=600 budget=600 charge=[[C]]:

; CHECK-LABEL: define i64 @walk(
; CHECK: common:
; CHECK-NOT: %quanta.budget
; CHECK: rare:
; CHECK-NOT: %quanta.budget
; CHECK: scan:
; CHECK: outer.latch.outer_crit_edge:
; CHECK-NEXT: [[LEFT:%.*]] = sub i64 %quanta.budget{{.*}}, [[#]]
; CHECK-NEXT: %quanta.fire{{.*}} = icmp slt i64 [[LEFT]], 0

; FIXED-LABEL: define i64 @walk(
; FIXED: common:
; FIXED: sub i64 %quanta.budget
; FIXED: rare:
; FIXED: sub i64 %quanta.budget

declare void @ext(i64)

define i64 @walk(ptr %a, ptr %list, ptr %log) {
entry:
  br label %outer
outer:
  %r = phi ptr [ %list, %entry ], [ %r.next, %outer.latch ]
  %acc = phi i64 [ 0, %entry ], [ %acc.next, %outer.latch ]
  %v = load i64, ptr %r
  %w = mul i64 %v, 7
  %w2 = xor i64 %w, %acc
  %w3 = lshr i64 %w2, 3
  %w4 = add i64 %w3, %v
  %odd = and i64 %w4, 1
  %isodd = icmp ne i64 %odd, 0
  br i1 %isodd, label %common, label %join
common:
  %x1 = mul i64 %v, 3
  %x2 = add i64 %x1, %acc
  br label %join
join:
  %acc1 = phi i64 [ %acc, %outer ], [ %x2, %common ]
  %neg = icmp slt i64 %acc1, 0
  br i1 %neg, label %rare, label %scan, !prof !0
rare:
  %y = sub i64 0, %acc1
  store i64 %y, ptr %log
  br label %scan
scan:
  %i = phi i64 [ %v, %join ], [ %i.next, %scan ], [ %v, %rare ]
  %p = getelementptr inbounds i8, ptr %a, i64 %i
  %c = load i8, ptr %p
  %i.next = add i64 %i, 1
  %sp = icmp eq i8 %c, 32
  br i1 %sp, label %outer.latch, label %scan
outer.latch:
  %acc.next = add i64 %acc1, %i
  %nx = getelementptr inbounds i64, ptr %r, i64 1
  %r.next = load ptr, ptr %nx
  %stop = icmp eq ptr %r.next, null
  br i1 %stop, label %done, label %outer
done:
  ret i64 %acc.next
}

!0 = !{!"branch_weights", i32 1, i32 1000}
