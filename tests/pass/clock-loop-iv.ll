; A loop whose exit depends on data (no trip count) but which has an induction variable:
; the probe is gated on the IV itself, ((iv.next - start) & mask) == 0, so no counter is
; added. Body cost 6 (the load counts 2, address arithmetic and casts 0), B = 600: 100
; iterations, rounded to the nearest power of two, 128. The IV steps by 4, so the mask
; covers two more bits: (128 << 2) - 1 = 511. That is the fixed stride (-quanta-adaptive=0,
; and flag mode's rule).
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-adaptive=0 -S %s | FileCheck %s
; With adaptation (the clock default) the IV is compared with probe.at, which starts 128
; iterations (512 bytes) ahead of the start and which every probe moves `gap` steps ahead
; of the IV; the gap comes from quanta_clock_gap(), at most 64 * 128 iterations. The distance left
; lives in a register: at the top level each call starts a whole stride (512 bytes), and
; nothing is kept after the exit (clock-loop-carry.ll has the nested case, where it is).
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -S %s | FileCheck %s --check-prefix=ADAPT

; CHECK-LABEL: define i64 @scan(
; CHECK-NOT: quanta.budget
; CHECK: %quanta.iters = sub i64 %off.next, %start
; CHECK-NEXT: %quanta.stride = and i64 %quanta.iters, 511
; CHECK-NEXT: %quanta.fire = icmp eq i64 %quanta.stride, 0
; CHECK-NEXT: br i1 %quanta.fire, label %[[PROBE:.*]], label
; CHECK: [[PROBE]]:
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; ADAPT-LABEL: define i64 @scan(
; ADAPT: %quanta.gap = alloca [6 x i64]
; ADAPT-NOT: alloca
; ADAPT: %quanta.probe.first = add i64 %start, 512
; ADAPT: loop:
; ADAPT-NEXT: %quanta.probe.at = phi i64 [ %quanta.probe.first, %entry ], [ %quanta.probe.at.next, %[[TAIL:.*]] ]
; ADAPT-NOT: quanta.stride
; ADAPT: %quanta.fire = icmp eq i64 %off.next, %quanta.probe.at
; ADAPT-NEXT: br i1 %quanta.fire, label %[[PROBE:.*]], label %[[TAIL]], !prof
; ADAPT: [[PROBE]]:
; ADAPT-NEXT: %quanta.gap.next = call i64 @quanta_clock_gap(ptr %quanta.gap, i64 128, i64 8192, i64 0, i64 8192)
; ADAPT-NEXT: [[AHEAD:%.*]] = mul i64 %quanta.gap.next, 4
; ADAPT-NEXT: %quanta.probe.next = add i64 %off.next, [[AHEAD]]
; ADAPT: [[TAIL]]:
; ADAPT-NEXT: %quanta.probe.at.next = phi i64 [ %quanta.probe.at, %loop ], [ %quanta.probe.next, %[[PROBE]] ]
; ADAPT-NOT: store
; ADAPT: ret i64
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
