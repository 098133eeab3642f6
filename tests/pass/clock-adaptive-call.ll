; An adaptive loop probe (AdaptiveProbe.cpp): the loop counts its gap down inline, and only
; when the gap runs out calls the runtime's quanta_clock_gap(site, static gap, max gap,
; overshoot, -quanta-probe-max-cycles) (include/quanta/clock_gap.h), which reads the clock,
; yields past the deadline and returns the next gap; its rules are unit-tested by value
; (tests/unit/clock_gap_test.cc). The site is six words in the frame; at entry only START
; is stored, 0: a fresh site, whose other words the runtime takes as 0 and writes itself
; (one store per site and entry, not five: zlib's longest_match sets up two sites on each of
; its 112K calls). The static gap (here 128 iterations, a body of cost 4 under B = 600) is
; the call's argument. The module reads no clock and defines no helper of its own. The call
; is declared cold, so codegen keeps it off the loop's path.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-probe-max-cycles=4096 -mtriple=x86_64-unknown-linux-gnu -S %s | FileCheck %s
; Elsewhere the site's own address is passed (no asm: clock-loop-exit-shifted.ll has why).
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-probe-max-cycles=4096 -mtriple=aarch64-unknown-linux-gnu -S %s | FileCheck %s --check-prefix=OTHER
; -quanta-count-probes counts each call as one executed probe, right before it.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-count-probes -mtriple=x86_64-unknown-linux-gnu -S %s | FileCheck %s --check-prefix=COUNT

; CHECK-LABEL: define i64 @scan(
; CHECK: %quanta.gap = alloca [6 x i64]
; CHECK-NEXT: [[W0:%.*]] = getelementptr inbounds i64, ptr %quanta.gap, i32 0
; CHECK-NEXT: store i64 0, ptr [[W0]]
; CHECK-NOT: %quanta.gap
; CHECK: loop:
; CHECK-NOT: call
; CHECK: %quanta.fire = icmp eq i64 %off.next, %quanta.probe.at
; CHECK-NEXT: br i1 %quanta.fire, label %[[PROBE:.*]], label %{{.*}}, !prof
; CHECK: [[PROBE]]:
; CHECK-NEXT: %quanta.site = call ptr asm sideeffect "leaq $1, $0", "=r,*m"(ptr elementtype([6 x i64]) %quanta.gap)
; CHECK-NEXT: %quanta.gap.next = call i64 @quanta_clock_gap(ptr %quanta.site, i64 128, i64 8192, i64 0, i64 4096)
; CHECK-NOT: readcyclecounter
; CHECK-NOT: rdtsc
; CHECK: declare i64 @quanta_clock_gap(ptr, i64, i64, i64, i64) #[[ATTR:[0-9]+]]
; CHECK-NOT: define
; CHECK: attributes #[[ATTR]] = { cold nounwind }

; OTHER: %quanta.gap.next = call i64 @quanta_clock_gap(ptr %quanta.gap, i64 128, i64 8192, i64 0, i64 4096)
; OTHER-NOT: asm

; COUNT: [[N:%.*]] = load i64, ptr @quanta_stat_probes_executed
; COUNT-NEXT: [[N1:%.*]] = add i64 [[N]], 1
; COUNT-NEXT: store i64 [[N1]], ptr @quanta_stat_probes_executed
; COUNT-NEXT: %quanta.site = call ptr asm
; COUNT-NEXT: %quanta.gap.next = call i64 @quanta_clock_gap(ptr %quanta.site, i64 128, i64 8192, i64 0, i64 8192)

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
