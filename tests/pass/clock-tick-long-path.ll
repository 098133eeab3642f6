; Ticks on a rare long path: an entry tick charges the longest probe-free path from the
; entry, so one rarely taken long branch would make every call pay for it and read the
; clock far more often than the common path needs. Where a path from a tick would pass an
; eighth of the bound (10 here, B = 80), outside loops, it gets a tick of its own: the entry
; tick charges 10 (the common path runs 6 of it), the long branch ticks twice on its way.
; Callers still see the whole stretch (summary entry=23): entry ticks are no probes to
; them. The recursive call is followed by a tick (charge 2: the add and the return).
; RUN: %opt -passes=quanta-clock -quanta-bound=80 -S %s | FileCheck %s
; RUN: %opt -passes='print<quanta-plan>' -quanta-bound=80 -disable-output %s 2>&1 | FileCheck %s --check-prefix=PLAN
; RUN: %opt -passes=quanta-clock -quanta-bound=80 -pass-remarks=quanta -disable-output %s 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: %opt -passes=quanta-clock -quanta-bound=80 -stats -disable-output %s 2>&1 | FileCheck %s --check-prefix=STATS

; PLAN: function deep: entry tick, charge 10 (on a call-graph cycle); summary entry=23 exit=3 through=3 ticked-exit=2
; REMARK: remark: {{.*}}entry tick, charge 10: deep is on a call-graph cycle
; REMARK: remark: {{.*}}tick, charge 10: the path from a tick would pass an eighth of the bound here
; REMARK: remark: {{.*}}tick, charge 3: the path from a tick would pass an eighth of the bound here
; REMARK: remark: {{.*}}tick after the call, charge 2: the callee may return from a tick
; STATS: 1 quanta - Ticks after calls that may return from a tick (back into the cycle)
; STATS: 1 quanta - Entry ticks of functions on a call-graph cycle (recursion)
; STATS: 2 quanta - Ticks where a path from a tick would pass an eighth of the bound

; CHECK-LABEL: define i64 @deep(
; CHECK: %quanta.tick = sub i64 %{{[0-9]+}}, 10
; CHECK: rec:
; CHECK-NOT: quanta_tick_budget
; CHECK: slow:
; CHECK: %a6 = mul i64 %a5, 3
; CHECK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; CHECK: %quanta.tick{{[0-9]+}} = sub i64 %{{[0-9]+}}, 10
; CHECK: %a7 = mul i64 %a6, 3
; CHECK: %a16 = mul i64 %a15, 3
; CHECK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; CHECK: %quanta.tick{{[0-9]+}} = sub i64 %{{[0-9]+}}, 3
; CHECK: go:
; CHECK-NOT: quanta_tick_budget
; CHECK: call i64 @deep(
; CHECK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; CHECK: %quanta.tick{{[0-9]+}} = sub i64 %{{[0-9]+}}, 2
define i64 @deep(ptr %n, i64 %x) {
entry:
  %null = icmp eq ptr %n, null
  br i1 %null, label %done, label %rec
rec:
  %big = icmp ugt i64 %x, 100
  br i1 %big, label %slow, label %go
slow:
  %a1 = mul i64 %x, 3
  %a2 = mul i64 %a1, 3
  %a3 = mul i64 %a2, 3
  %a4 = mul i64 %a3, 3
  %a5 = mul i64 %a4, 3
  %a6 = mul i64 %a5, 3
  %a7 = mul i64 %a6, 3
  %a8 = mul i64 %a7, 3
  %a9 = mul i64 %a8, 3
  %a10 = mul i64 %a9, 3
  %a11 = mul i64 %a10, 3
  %a12 = mul i64 %a11, 3
  %a13 = mul i64 %a12, 3
  %a14 = mul i64 %a13, 3
  %a15 = mul i64 %a14, 3
  %a16 = mul i64 %a15, 3
  br label %go
go:
  %y = phi i64 [ %x, %rec ], [ %a16, %slow ]
  %next = load ptr, ptr %n
  %s = call i64 @deep(ptr %next, i64 %y)
  %r = add i64 %s, 1
  ret i64 %r
done:
  ret i64 0
}
