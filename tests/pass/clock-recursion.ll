; Recursion: every call of a list walk stays far under the bound, so without a rule across
; calls no path inside one function ever needs a probe, and walking a million nodes runs
; probe-free. Each function on a call-graph cycle (a self-call, or functions calling each
; other) starts with an entry tick, which cuts every cycle of calls: it takes its charge
; (the longest probe-free path from the entry: to the next probe, a return, or a call back
; into the cycle) from the thread's budget quanta_tick_budget and reads the clock only when
; the budget goes below zero. The runtime's quanta_tick_gap() then reads the clock and
; restarts it at the thread's next adaptive gap (aimed at the deadline, as a loop's
; adaptive budget is) less the charge; with -quanta-adaptive=0 the tick reads the clock
; itself and restarts the budget at B - charge. Unwinding is a cycle too: each
; level's work after its recursive call adds up over the returns, and what a callee of
; the same cycle may return from a tick that did not read the clock, so nothing after such
; a call is on a path from a clock read: a tick goes right after the call (a post-call tick,
; charging what runs from there to the next probe, tick or return), and the function's
; summary says it may return from a tick (ticked-exit), so that its callers tick after
; calling it too. With -quanta-cycle-ticks=0 those are clock probes, as before ticks.
; RUN: %opt -passes=quanta-clock -S %s | FileCheck %s --check-prefix=TICK
; RUN: %opt -passes=quanta-clock -quanta-adaptive=0 -S %s | FileCheck %s --check-prefix=FIXED
; RUN: %opt -passes='print<quanta-plan>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=PLAN
; With -quanta-cycle-ticks=0 the entry is a clock probe, as before ticks.
; RUN: %opt -passes=quanta-clock -quanta-cycle-ticks=0 -S %s | FileCheck %s
; RUN: env QUANTA_CYCLE_TICKS=0 %opt -passes=quanta-clock -S %s | FileCheck %s
; Before call summaries (the hidden comparison option), nothing is placed at all.
; RUN: %opt -passes=quanta-clock -quanta-call-summaries=0 -S %s | FileCheck %s --check-prefix=OLD
; OLD-NOT: readcyclecounter

; The budget is the runtime's, initial-exec like the deadline (one %fs-relative access).
; TICK: @quanta_tick_budget = external thread_local(initialexec) global i64

; Direct recursion: a tick first, after the allocas, and a tick between the recursive call
; and the add that follows it. The entry tick's charge, 7: the alloca, the null test and
; its branch, the two loads before the recursive call (2 each); the post-call tick's, 2:
; the add and the return. The slow path is the runtime's: the charge (ahead of the read),
; the static gap B, the longest gap (64 B) and the cycle cap.
; TICK-LABEL: define i64 @sum(
; TICK-NEXT: entry:
; TICK-NEXT: %slot = alloca i64
; TICK-NEXT: %[[A:[0-9]+]] = call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK-NEXT: %[[B:[0-9]+]] = load i64, ptr %[[A]]
; TICK-NEXT: %quanta.tick = sub i64 %[[B]], 7
; TICK-NEXT: %quanta.tickout = icmp slt i64 %quanta.tick, 0
; TICK-NEXT: store i64 %quanta.tick, ptr %[[A]]
; TICK-NEXT: br i1 %quanta.tickout, label %[[READ:[0-9]+]], label
; TICK: [[READ]]:
; TICK-NEXT: call void @quanta_tick_gap(i64 7, i64 1000, i64 64000, i64 8192)
; TICK-NOT: readcyclecounter
; TICK: %s = call i64 @sum(ptr %next)
; TICK-NEXT: %[[D:[0-9]+]] = call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK-NEXT: %[[E:[0-9]+]] = load i64, ptr %[[D]]
; TICK-NEXT: %quanta.tick1 = sub i64 %[[E]], 2
; TICK-NOT: readcyclecounter
; TICK: br i1 %quanta.tickout2
; TICK: %r = add i64 %s, %v
; TICK-NEXT: ret i64 %r
; FIXED-LABEL: define i64 @sum(
; FIXED: %quanta.tick = sub i64 %{{[0-9]+}}, 7
; FIXED-NEXT: %quanta.tickout = icmp slt i64 %quanta.tick, 0
; FIXED-NEXT: %[[C:[0-9]+]] = select i1 %quanta.tickout, i64 993, i64 %quanta.tick
; FIXED-NEXT: store i64 %[[C]], ptr
; FIXED-NEXT: br i1 %quanta.tickout, label %[[READ:[0-9]+]], label
; FIXED: [[READ]]:
; FIXED-NEXT: %quanta.now = call i64 @llvm.readcyclecounter()
; FIXED-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_deadline_tsc)
; FIXED: call void @quanta_probe_slow()
; FIXED-NOT: quanta_tick_gap
; FIXED: ret i64
; PLAN-LABEL: function sum: entry tick, charge 7 (on a call-graph cycle); summary entry=7 exit=4 through=4 ticked-exit=2
; CHECK-LABEL: define i64 @sum(
; CHECK-NEXT: entry:
; CHECK-NEXT: %slot = alloca i64
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK: %s = call i64 @sum(ptr %next)
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK: %r = add i64 %s, %v
; CHECK-NEXT: ret i64 %r
define i64 @sum(ptr %n) {
entry:
  %slot = alloca i64
  %null = icmp eq ptr %n, null
  br i1 %null, label %done, label %rec
rec:
  %v = load i64, ptr %n
  %nextp = getelementptr i8, ptr %n, i64 8
  %next = load ptr, ptr %nextp
  %s = call i64 @sum(ptr %next)
  %r = add i64 %s, %v
  ret i64 %r
done:
  ret i64 0
}

; A tree walk: each recursive call is followed by a tick (the first charges the call that
; follows it, the second the branch and the return); no clock read but in the ticks' slow
; paths. With -quanta-cycle-ticks=0, the second call needs no probe before it (the callee
; probes first), the return after it does.
; TICK-LABEL: define void @walk(
; TICK-NEXT: entry:
; TICK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK: %quanta.tick = sub i64 %{{[0-9]+}}, 6
; TICK: call void @walk(ptr %l)
; TICK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK: sub i64 %{{[0-9]+}}, 1
; TICK: call void @walk(ptr %r)
; TICK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK: ret void
; PLAN-LABEL: function walk: entry tick, charge 6 (on a call-graph cycle)
; CHECK-LABEL: define void @walk(
; CHECK-NEXT: entry:
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK: call void @walk(ptr %l)
; CHECK-NOT: readcyclecounter
; CHECK: call void @walk(ptr %r)
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK: ret void
define void @walk(ptr %n) {
entry:
  %null = icmp eq ptr %n, null
  br i1 %null, label %done, label %rec
rec:
  %lp = getelementptr i8, ptr %n, i64 8
  %l = load ptr, ptr %lp
  %rp = getelementptr i8, ptr %n, i64 16
  %r = load ptr, ptr %rp
  call void @walk(ptr %l)
  call void @walk(ptr %r)
  br label %done
done:
  ret void
}

; Mutual recursion: both functions of the cycle tick at entry; @leaf, which they call but
; which calls nothing back, is not on the cycle and stays probe-free. @is_odd is placed
; first; @is_even's call to it then uses its summary (it ticks, and its `no` path returns
; probe-free), so @is_even's charge runs on into @is_odd: 11 = @is_even's 5 units before
; the call, @leaf's 3 and @is_odd's 3. @is_odd may return from the tick after its call, so
; @is_even's call to it is followed by a tick, which ends the entry tick's stretch.
; TICK-LABEL: define i1 @is_even(
; TICK-NEXT: entry:
; TICK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK: %quanta.tick = sub i64 %{{[0-9]+}}, 11
; TICK-LABEL: define i1 @is_odd(
; TICK-NEXT: entry:
; TICK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK: %quanta.tick = sub i64 %{{[0-9]+}}, 3
; TICK-LABEL: define i64 @leaf(
; TICK-NOT: {{quanta_tick_budget|readcyclecounter}}
; TICK: ret i64
; PLAN: function is_odd: entry tick, charge 3 (on a call-graph cycle)
; PLAN: function is_even: entry tick, charge 11 (on a call-graph cycle)
; CHECK-LABEL: define i1 @is_even(
; CHECK-NEXT: entry:
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK-LABEL: define i1 @is_odd(
; CHECK-NEXT: entry:
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK-LABEL: define i64 @leaf(
; CHECK-NOT: readcyclecounter
; CHECK: ret i64
define i1 @is_even(i64 %n) {
entry:
  %z = icmp eq i64 %n, 0
  br i1 %z, label %yes, label %rec
rec:
  %m = sub i64 %n, 1
  %x = call i64 @leaf(i64 %m)
  %o = call i1 @is_odd(i64 %x)
  ret i1 %o
yes:
  ret i1 true
}

define i1 @is_odd(i64 %n) {
entry:
  %z = icmp eq i64 %n, 0
  br i1 %z, label %no, label %rec
rec:
  %m = sub i64 %n, 1
  %e = call i1 @is_even(i64 %m)
  ret i1 %e
no:
  ret i1 false
}

define i64 @leaf(i64 %n) {
  %a = add i64 %n, 1
  %b = sub i64 %a, 1
  ret i64 %b
}

; A caller of a recursive function is not on its cycle: no entry probe or tick. @sum may
; return from its post-call tick, so the caller ticks after the call (charge 2: the add and
; the return), and may return from that tick itself. An entry tick may not read the clock,
; so a caller outside the cycle counts @sum's entry tick's charge as part of its own path
; (summary entry=7, not 0). With -quanta-cycle-ticks=0 nothing follows the call, since
; @sum's own last probe comes right before its add.
; TICK-LABEL: define i64 @start(
; TICK-NEXT: %s = call i64 @sum(ptr %list)
; TICK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK: sub i64 %{{[0-9]+}}, 2
; TICK: ret i64
; PLAN: function start: summary entry=7 exit=2 ticked-exit=2
; CHECK-LABEL: define i64 @start(
; CHECK-NOT: readcyclecounter
; CHECK: ret i64
define i64 @start(ptr %list) {
  %s = call i64 @sum(ptr %list)
  %t = add i64 %s, 1
  ret i64 %t
}
