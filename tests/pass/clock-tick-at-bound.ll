; In a function on a call-graph cycle, whose entry tick already charges the thread's
; budget, a path from the last clock read that would pass the bound gets a tick there
; (TickAtBound) instead of a clock probe: a subtraction instead of an rdtsc on every run,
; the clock read once the budget runs out. The bound for ticks (docs/pass.md, "Across
; calls") holds: the stretch from the clock read to the tick is at most B, the tick's own
; stretch comes out of the budget. A function off every cycle keeps its clock probe, and
; so does every function with -quanta-cycle-ticks=0.
; RUN: %opt -passes=quanta-clock -quanta-bound=40 -pass-remarks=quanta -S %s 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %opt -passes=quanta-clock -quanta-bound=40 -quanta-cycle-ticks=0 -pass-remarks=quanta -S -o /dev/null %s 2>&1 | FileCheck %s --check-prefix=NOTICKS

; REMARK: entry tick, charge {{[0-9]+}}: rec is on a call-graph cycle
; REMARK: tick at the bound, charge {{[0-9]+}}: the path from a clock read would pass the bound here, in a function on a call-graph cycle
; REMARK-NOT: probe: the probe-free path would pass the bound here
; REMARK: probe: the probe-free path would pass the bound here (39 before it)
; NOTICKS: entry probe: rec is on a call-graph cycle
; NOTICKS: probe: the probe-free path would pass the bound here
; NOTICKS-NOT: tick at the bound

; CHECK-LABEL: define i64 @rec(
; CHECK-NOT: readcyclecounter
; CHECK: ret i64 0
; CHECK-LABEL: define i64 @flat(
; CHECK: call i64 @llvm.readcyclecounter()
define i64 @rec(ptr %p, i64 %n) {
entry:
  %z = icmp eq i64 %n, 0
  br i1 %z, label %done, label %work
work:
  %l0 = load volatile i64, ptr %p
  %m0 = mul i64 %l0, %n
  %l1 = load volatile i64, ptr %p
  %m1 = mul i64 %l1, %m0
  %l2 = load volatile i64, ptr %p
  %m2 = mul i64 %l2, %m1
  %l3 = load volatile i64, ptr %p
  %m3 = mul i64 %l3, %m2
  %l4 = load volatile i64, ptr %p
  %m4 = mul i64 %l4, %m3
  %l5 = load volatile i64, ptr %p
  %m5 = mul i64 %l5, %m4
  %l6 = load volatile i64, ptr %p
  %m6 = mul i64 %l6, %m5
  %l7 = load volatile i64, ptr %p
  %m7 = mul i64 %l7, %m6
  %l8 = load volatile i64, ptr %p
  %m8 = mul i64 %l8, %m7
  %l9 = load volatile i64, ptr %p
  %m9 = mul i64 %l9, %m8
  %l10 = load volatile i64, ptr %p
  %m10 = mul i64 %l10, %m9
  %l11 = load volatile i64, ptr %p
  %m11 = mul i64 %l11, %m10
  %l12 = load volatile i64, ptr %p
  %m12 = mul i64 %l12, %m11
  %l13 = load volatile i64, ptr %p
  %m13 = mul i64 %l13, %m12
  %l14 = load volatile i64, ptr %p
  %m14 = mul i64 %l14, %m13
  %l15 = load volatile i64, ptr %p
  %m15 = mul i64 %l15, %m14
  %l16 = load volatile i64, ptr %p
  %m16 = mul i64 %l16, %m15
  %l17 = load volatile i64, ptr %p
  %m17 = mul i64 %l17, %m16
  %l18 = load volatile i64, ptr %p
  %m18 = mul i64 %l18, %m17
  %l19 = load volatile i64, ptr %p
  %m19 = mul i64 %l19, %m18
  %l20 = load volatile i64, ptr %p
  %m20 = mul i64 %l20, %m19
  %l21 = load volatile i64, ptr %p
  %m21 = mul i64 %l21, %m20
  %l22 = load volatile i64, ptr %p
  %m22 = mul i64 %l22, %m21
  %l23 = load volatile i64, ptr %p
  %m23 = mul i64 %l23, %m22
  %d = sub i64 %n, 1
  %s = call i64 @rec(ptr %p, i64 %d)
  %r = add i64 %s, %m23
  ret i64 %r
done:
  ret i64 0
}

define i64 @flat(ptr %p, i64 %n) {
entry:
  %l0 = load volatile i64, ptr %p
  %m0 = mul i64 %l0, %n
  %l1 = load volatile i64, ptr %p
  %m1 = mul i64 %l1, %m0
  %l2 = load volatile i64, ptr %p
  %m2 = mul i64 %l2, %m1
  %l3 = load volatile i64, ptr %p
  %m3 = mul i64 %l3, %m2
  %l4 = load volatile i64, ptr %p
  %m4 = mul i64 %l4, %m3
  %l5 = load volatile i64, ptr %p
  %m5 = mul i64 %l5, %m4
  %l6 = load volatile i64, ptr %p
  %m6 = mul i64 %l6, %m5
  %l7 = load volatile i64, ptr %p
  %m7 = mul i64 %l7, %m6
  %l8 = load volatile i64, ptr %p
  %m8 = mul i64 %l8, %m7
  %l9 = load volatile i64, ptr %p
  %m9 = mul i64 %l9, %m8
  %l10 = load volatile i64, ptr %p
  %m10 = mul i64 %l10, %m9
  %l11 = load volatile i64, ptr %p
  %m11 = mul i64 %l11, %m10
  %l12 = load volatile i64, ptr %p
  %m12 = mul i64 %l12, %m11
  %l13 = load volatile i64, ptr %p
  %m13 = mul i64 %l13, %m12
  %l14 = load volatile i64, ptr %p
  %m14 = mul i64 %l14, %m13
  %l15 = load volatile i64, ptr %p
  %m15 = mul i64 %l15, %m14
  %l16 = load volatile i64, ptr %p
  %m16 = mul i64 %l16, %m15
  %l17 = load volatile i64, ptr %p
  %m17 = mul i64 %l17, %m16
  %l18 = load volatile i64, ptr %p
  %m18 = mul i64 %l18, %m17
  %l19 = load volatile i64, ptr %p
  %m19 = mul i64 %l19, %m18
  %l20 = load volatile i64, ptr %p
  %m20 = mul i64 %l20, %m19
  %l21 = load volatile i64, ptr %p
  %m21 = mul i64 %l21, %m20
  %l22 = load volatile i64, ptr %p
  %m22 = mul i64 %l22, %m21
  %l23 = load volatile i64, ptr %p
  %m23 = mul i64 %l23, %m22
  ret i64 %m23
}
