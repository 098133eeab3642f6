; A loop that would probe on every back-edge (one iteration costs at least half the
; bound) in a function on a call-graph cycle ticks there instead: the tick charges the
; next iteration's longest path from the thread's budget and reads the clock only when the
; budget runs out (Lua's sort partition read the clock on every iteration around its
; comparator). The same loop off every cycle, or with -quanta-cycle-ticks=0, keeps its
; clock probe.
; RUN: %opt -passes=quanta-clock -quanta-bound=40 -S %s | FileCheck %s
; RUN: %opt -passes='print<quanta-plan>' -quanta-bound=40 -disable-output %s 2>&1 | FileCheck %s --check-prefix=PLAN
; RUN: %opt -passes=quanta-clock -quanta-bound=40 -quanta-cycle-ticks=0 -S %s | FileCheck %s --check-prefix=NOTICKS

; PLAN-LABEL: function rec:
; PLAN: Every iter-cost={{[0-9]+}} bound=40 latch-tick charge={{[0-9]+}}: one iteration costs at least half the bound
; PLAN-LABEL: function flat:
; PLAN-NOT: latch-tick
; PLAN: Every iter-cost={{[0-9]+}} bound=40: one iteration costs at least half the bound

; CHECK-LABEL: define i64 @rec(
; CHECK: loop:
; CHECK-NOT: readcyclecounter
; CHECK: %quanta.tick{{[0-9]*}} = sub i64 %{{[0-9]+}}, [[ITER:[0-9]+]]
; CHECK: call void @quanta_tick_gap(i64 [[ITER]],
; CHECK-NOT: readcyclecounter
; CHECK: ret i64
; CHECK-LABEL: define i64 @flat(
; CHECK: loop:
; CHECK: call i64 @llvm.readcyclecounter()
; NOTICKS-LABEL: define i64 @rec(
; NOTICKS: loop:
; NOTICKS: call i64 @llvm.readcyclecounter()
; NOTICKS-NOT: quanta_tick_gap
define i64 @rec(ptr %p, i64 %n) {
entry:
  %z = icmp eq i64 %n, 0
  br i1 %z, label %done, label %loop
loop:
  %acc = phi i64 [ %n, %entry ], [ %m7, %loop ]
  %l0 = load volatile i64, ptr %p
  %m0 = mul i64 %l0, %acc
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
  %go = icmp ne i64 %m7, 0
  br i1 %go, label %loop, label %after
after:
  %d = sub i64 %n, 1
  %s = call i64 @rec(ptr %p, i64 %d)
  %r = add i64 %s, %m7
  ret i64 %r
done:
  ret i64 0
}

define i64 @flat(ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %acc = phi i64 [ %n, %entry ], [ %m7, %loop ]
  %l0 = load volatile i64, ptr %p
  %m0 = mul i64 %l0, %acc
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
  %go = icmp ne i64 %m7, 0
  br i1 %go, label %loop, label %after
after:
  ret i64 %m7
}
