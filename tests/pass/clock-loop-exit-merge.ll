; A counted loop (latch exits on i.next == n) under adaptive clock probes shares its exit
; compare with the probe: the latch tests i.next == limit, limit being whichever of n and
; probe.at the IV reaches first, so the hot path is the plain loop's compare and branch.
; Only when the limit is hit does quanta.hit tell the end (leave; in a nest it would save
; how far the probe is for the next entry, clock-loop-carry.ll) from a probe (ask quanta_clock_gap() for the next gap, move probe.at and
; recompute the limit). Body cost 6, B = 600: static stride 128 iterations (the first gap,
; and the first distance), at most 64 * 128.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -S %s | FileCheck %s
; Flag mode does not share it (it paid nothing on the real programs): its fixed stride
; (1000 / 6: 128 iterations) is a mask test of the iterations next to the exit's compare.
; RUN: %opt -passes=quanta-flag -S %s | FileCheck %s --check-prefix=FLAG
; Without the merge the probe keeps its own compare next to the exit's.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-merge-exit=0 -S %s | FileCheck %s --check-prefix=APART

; CHECK-LABEL: define i64 @sum(
; CHECK: %quanta.gap = alloca [6 x i64]
; CHECK: loop.quanta.ph:
; CHECK: %quanta.probe.first = add i64 0, 128
; CHECK: [[FIRST:%.*]] = select i1 %{{.*}}, i64 %n, i64 %quanta.probe.first
; CHECK: loop:
; CHECK-NEXT: %quanta.limit = phi i64 [ [[FIRST]], %loop.quanta.ph ], [ %quanta.limit, %loop ], [ [[NEXTLIM:%.*]], %quanta.probe ]
; CHECK-NEXT: %quanta.probe.at = phi i64
; CHECK-NOT: icmp eq i64 %i.next, %n
; CHECK: %quanta.at.limit = icmp eq i64 %i.next, %quanta.limit
; CHECK-NEXT: br i1 %quanta.at.limit, label %quanta.hit, label %loop
; CHECK: quanta.hit:
; CHECK-NEXT: %quanta.iv = call i64 asm "", "=r,0"(i64 %i.next)
; CHECK-NOT: store
; CHECK: %quanta.end = icmp eq i64 %quanta.iv, %n
; CHECK-NEXT: br i1 %quanta.end, label %done.loopexit, label %quanta.probe
; CHECK: quanta.probe:
; CHECK-NEXT: %quanta.gap.next = call i64 @quanta_clock_gap(ptr %quanta.gap, i64 128, i64 8192, i64 0, i64 8192)
; CHECK: %quanta.probe.next = add i64 %quanta.iv,
; CHECK: [[NEXTLIM]] = select i1 %{{.*}}, i64 %n, i64 %quanta.probe.next
; CHECK-NEXT: br label %loop
; CHECK: done.loopexit:
; CHECK-NEXT: phi i64 [ %s.next, %quanta.hit ], [ %s.next.quanta.fast, %loop.quanta.fast ]

; FLAG-LABEL: define i64 @sum(
; FLAG-NOT: quanta.limit
; FLAG: %end = icmp eq i64 %i.next, %n
; FLAG: %quanta.stride = and i64 %quanta.iters, 127
; FLAG: load atomic volatile i32
; FLAG: call void @quanta_flag_probe_slow()
; FLAG: br i1 %end, label %done.loopexit, label %loop

; APART-LABEL: define i64 @sum(
; APART: loop:
; APART: %end = icmp eq i64 %i.next, %n
; APART-NEXT: %quanta.fire = icmp eq i64 %i.next, %quanta.probe.at

define i64 @sum(ptr %a, i64 %n) {
entry:
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %done, label %loop
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
