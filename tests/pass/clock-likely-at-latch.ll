; An adaptive budget (a loop with a probing child: the function's budget) charges at its
; latch, besides what every iteration runs (33), the cheap blocks that the branch
; estimates say most iterations run: `common` (3, a 50/50 branch) subtracts nothing where
; it runs, and the latch subtracts 36. One subtract per iteration instead of one per
; block (word_count: five a word became one). An adaptive gap is planned by its measured
; cycles per unit, so a steady over-charge costs no precision. Still charged where they
; run: `rare` (its branch weights say 1 in 1000) and `costly`, 50/50 by the estimates but
; dearer than the mandatory cost (101 > 33: charged at the latch it could over-charge a
; cheap iteration fourfold). Fixed strides keep every optional block's own subtract.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -S %s | FileCheck %s
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-adaptive=0 -S %s | FileCheck %s --check-prefix=FIXED

; CHECK-LABEL: define i64 @walk(
; CHECK: common:
; CHECK-NOT: %quanta.budget
; CHECK: join:
; CHECK: costly:
; CHECK: sub i64 %quanta.budget{{.*}}, 101
; CHECK: rare:
; CHECK: sub i64 %quanta.budget{{.*}}, 51
; CHECK: outer.latch.outer_crit_edge:
; CHECK-NEXT: [[LEFT:%.*]] = sub i64 %quanta.budget{{.*}}, 36
; CHECK-NEXT: %quanta.fire{{.*}} = icmp slt i64 [[LEFT]], 0

; FIXED-LABEL: define i64 @walk(
; FIXED: common:
; FIXED: sub i64 %quanta.budget{{.*}}, 3
; FIXED: costly:
; FIXED: sub i64 %quanta.budget{{.*}}, 101
; FIXED: rare:
; FIXED: sub i64 %quanta.budget{{.*}}, 51
; FIXED: outer.latch.outer_crit_edge:
; FIXED-NEXT: [[LEFT:%.*]] = sub i64 %{{.*}}, 33
; FIXED-NEXT: %quanta.fire{{.*}} = icmp slt i64 [[LEFT]], 0

declare void @ext(i64)

define i64 @walk(ptr %a, ptr %list) {
entry:
  br label %outer
outer:
  %r = phi ptr [ %list, %entry ], [ %r.next, %outer.latch ]
  %acc = phi i64 [ 0, %entry ], [ %acc.next, %outer.latch ]
  %v = load i64, ptr %r
  %odd = and i64 %v, 1
  %isodd = icmp ne i64 %odd, 0
  br i1 %isodd, label %common, label %join
common:
  %x1 = mul i64 %v, 3
  %x2 = add i64 %x1, %acc
  br label %join
join:
  %acc1 = phi i64 [ %acc, %outer ], [ %x2, %common ]
  %big = icmp ugt i64 %v, 1000
  br i1 %big, label %costly, label %check
costly:
  call void @ext(i64 %v)
  call void @ext(i64 %acc1)
  br label %check
check:
  %neg = icmp slt i64 %acc1, 0
  br i1 %neg, label %rare, label %scan, !prof !0
rare:
  call void @ext(i64 %acc1)
  br label %scan
scan:
  %i = phi i64 [ %v, %check ], [ %i.next, %scan ], [ %v, %rare ]
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
