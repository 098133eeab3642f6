; The placement decisions as the pass reports them: one remark per loop plan and per probe
; the straight-line walk places (-pass-remarks=quanta; clang: -Rpass=quanta), and one
; statistic per kind of decision (-stats). Each function below takes one rule.
; RUN: %opt -passes=quanta-clock -pass-remarks=quanta -pass-remarks-missed=quanta -disable-output %s 2>&1 | FileCheck %s --check-prefix=CLOCK
; RUN: %opt -passes=quanta-flag -pass-remarks=quanta -pass-remarks-missed=quanta -disable-output %s 2>&1 | FileCheck %s --check-prefix=FLAG
; RUN: %opt -passes=quanta-clock -stats -disable-output %s 2>&1 | FileCheck %s --check-prefix=STATS
; With -quanta-cycle-ticks=0, an entry probe instead of the tick.
; RUN: %opt -passes=quanta-clock -quanta-cycle-ticks=0 -pass-remarks=quanta -disable-output %s 2>&1 | FileCheck %s --check-prefix=NOTICK
; RUN: %opt -passes=quanta-clock -quanta-cycle-ticks=0 -stats -disable-output %s 2>&1 | FileCheck %s --check-prefix=NOTICKSTATS
; NOTICK: remark: {{.*}}entry probe: rec is on a call-graph cycle
; NOTICK: remark: {{.*}}probe: the path is at the bound already ({{[0-9]+}}): a call may return with the bound spent
; NOTICKSTATS: 1 quanta - Entry probes of functions on a call-graph cycle (recursion)
; Nothing is said unless asked for.
; RUN: %opt -passes=quanta-clock -disable-output %s 2>&1 | count 0

; CLOCK: remark: {{.*}}not instrumented: marked QUANTA_NO_PREEMPT
; CLOCK: remark: {{.*}}loop fixed.loop: Static iter-cost=6 bound=1000 whole-loop=24: its largest trip count times its iteration cost fits under the bound
; CLOCK: remark: {{.*}}loop sum.loop: Version (long trips: IVStride) iter-cost=6 bound=1000 stride=128: innermost with a trip count known at entry
; CLOCK: remark: {{.*}}loop walk.loop: Counter iter-cost=22 {{.*}}: no induction variable fit to count on
; CLOCK: remark: {{.*}}entry tick, charge 6: rec is on a call-graph cycle
; CLOCK: remark: {{.*}}tick after the call, charge 2: the callee may return from a tick
; CLOCK: remark: {{.*}}probe before the call: the callee runs 901 before its first probe (long)
; CLOCK: remark: {{.*}}bracketed 2 lock calls with preempt-disable/enable

; Flag mode places by the same walk, with flag polls: a poll first in @rec (never a tick),
; none in @locked (three calls of 50 fit under the bound); the clock twins follow, @rec's
; with its tick.
; FLAG: remark: {{.*}}loop sum.loop: IVStride iter-cost=6 bound=1000 stride=128: counts iterations on its induction variable
; FLAG: remark: {{.*}}entry probe: rec is on a call-graph cycle
; FLAG-NEXT: remark: {{.*}}probe: the path is at the bound already ({{[0-9]+}}): a call may return with the bound spent
; FLAG-NEXT: remark: {{.*}}probe before the call: the callee runs 901 before its first probe (long)
; FLAG-NEXT: remark: {{.*}}bracketed 2 lock calls
; FLAG-NEXT: remark: {{.*}}loop fixed.loop:
; FLAG: remark: {{.*}}entry tick, charge 6: rec.quanta_clock is on a call-graph cycle

; STATS-DAG: 1 quanta - Entry ticks of functions on a call-graph cycle (recursion)
; STATS-DAG: 1 quanta - Ticks after calls that may return from a tick (back into the cycle)
; STATS-DAG: 1 quanta - Probes before a call whose callee starts with a long unprobed stretch
; STATS-DAG: 2 quanta - Lock calls bracketed with quanta_preempt_disable/enable
; STATS-DAG: 1 quanta - Loops that fit under the bound whole (no probe)
; STATS-DAG: 1 quanta - Loops with a probe-free short-trip clone
; STATS-DAG: 1 quanta - Loops probing when the function's budget runs out
; STATS-DAG: 1 quanta - Functions not instrumented because marked QUANTA_NO_PREEMPT

declare void @ext()
declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_unlock(ptr)

; Four iterations of 6 units: the whole loop is cheaper than the bound.
define i64 @fixed(ptr %a) {
entry:
  br label %fixed.loop
fixed.loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %fixed.loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %fixed.loop ]
  %p = getelementptr i64, ptr %a, i64 %i
  %v = load i64, ptr %p
  %s.next = add i64 %s, %v
  %i.next = add i64 %i, 1
  %c = icmp ne i64 %i.next, 4
  br i1 %c, label %fixed.loop, label %done
done:
  ret i64 %s.next
}

; n iterations, n known at entry: clock mode versions it, flag mode strides it.
define i64 @sum(ptr %a, i64 %n) {
entry:
  %z = icmp eq i64 %n, 0
  br i1 %z, label %done, label %sum.loop
sum.loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %sum.loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %sum.loop ]
  %p = getelementptr i64, ptr %a, i64 %i
  %v = load i64, ptr %p
  %s.next = add i64 %s, %v
  %i.next = add i64 %i, 1
  %c = icmp ne i64 %i.next, %n
  br i1 %c, label %sum.loop, label %done
done:
  %r = phi i64 [ 0, %entry ], [ %s.next, %sum.loop ]
  ret i64 %r
}

; A list walk: no induction variable, so the function's budget.
define void @walk(ptr %head) {
entry:
  br label %walk.loop
walk.loop:
  %p = phi ptr [ %head, %entry ], [ %next, %walk.loop ]
  %next = load ptr, ptr %p
  %end = icmp eq ptr %next, null
  br i1 %end, label %done, label %walk.loop
done:
  ret void
}

; Recursion: an entry tick (charge 6: the null test, its branch and two loads), and a
; tick after the recursive call (a clock probe with -quanta-cycle-ticks=0).
define i64 @rec(ptr %n) {
entry:
  %null = icmp eq ptr %n, null
  br i1 %null, label %done, label %more
more:
  %v = load i64, ptr %n
  %nextp = getelementptr i8, ptr %n, i64 8
  %next = load ptr, ptr %nextp
  %s = call i64 @rec(ptr %next)
  %r = add i64 %s, %v
  ret i64 %r
done:
  ret i64 0
}

; 18 external calls of 50 and its return: 901 units before the first probe of @long.
define void @long() {
entry:
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  ret void
}

; 3 external calls (150) then @long (900): over the bound, so a probe before the call.
define void @calls_long() {
entry:
  call void @ext()
  call void @ext()
  call void @ext()
  call void @long()
  ret void
}

define void @locked(ptr %m) {
entry:
  %l = call i32 @pthread_mutex_lock(ptr %m)
  call void @ext()
  %u = call i32 @pthread_mutex_unlock(ptr %m)
  ret void
}

define void @quiet() "quanta_no_preempt" {
entry:
  call void @ext()
  ret void
}
