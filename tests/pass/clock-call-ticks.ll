; Post-call ticks in loops. @sum is recursive: it may return from the tick after its own
; recursive call, so its summary has a ticked exit, and what a caller runs after calling
; it is on no path from a clock read. @many, outside the cycle, calls it in a loop, which
; (Counter, where it would count its induction variable) charges the thread's tick budget,
; the one the ticks charge, rather than a budget of its own: the latch subtracts the whole
; iteration (7: the load, the call's unit, nothing for @sum's start, which its entry tick
; charges, and the four after the call) from quanta_tick_budget and reads the clock,
; restarting it at the bound, once it goes below zero. So no tick follows the call inside
; the loop (it would charge nothing the blocks do not); the path out of the loop owes one,
; at the loop's exit, charging what the last iteration ran after the call and what follows
; (5: the four and the return). No loan, and no function budget in @many.
; RUN: %opt -passes=quanta-clock -quanta-adaptive=0 -S %s | FileCheck %s --check-prefix=TICK
; RUN: %opt -passes='print<quanta-plan>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=PLAN
; RUN: %opt -passes=quanta-clock -pass-remarks=quanta -disable-output %s 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: %opt -passes=quanta-clock -stats -disable-output %s 2>&1 | FileCheck %s --check-prefix=STATS
; With -quanta-cycle-ticks=0 @sum probes after its recursive call, returns with a known
; unprobed end, and @many's loop counts its induction variable (a probe-free clone for short
; trips) with nothing after the call.
; RUN: %opt -passes=quanta-clock -quanta-adaptive=0 -quanta-cycle-ticks=0 -S %s | FileCheck %s --check-prefix=OFF
; RUN: %opt -passes='print<quanta-plan>' -quanta-cycle-ticks=0 -disable-output %s 2>&1 | FileCheck %s --check-prefix=OFFPLAN

; PLAN: function sum: entry tick, charge 7 (on a call-graph cycle); summary entry=7 exit=4 through=4 ticked-exit=2
; PLAN: function many: summary
; PLAN-NEXT: loop loop: Counter iter-cost=14 bound=1000 budget=thread charge=7: calls that may return from a tick: it charges the thread's tick budget
; PLAN: function dispatch: entry tick
; PLAN-NEXT: loop top: Counter {{.*}}budget=thread charge=603: lopsided
; OFFPLAN: function many: summary
; OFFPLAN-NEXT: loop loop: Version (long trips: IVStride)

; REMARK: remark: {{.*}}tick leaving the loop, charge 5: a call in it may return from a tick
; STATS: 3 quanta - Ticks after calls that may return from a tick (back into the cycle)

; TICK-LABEL: define i64 @many(
; TICK-NOT: quanta.budget
; TICK: loop:
; TICK: %s = call i64 @sum(ptr %l)
; TICK-NEXT: %acc.next = add i64 %acc, %s
; The latch's check on the back-edge: the thread's budget, refilled to the bound on a read.
; TICK: [[ADDR:%[0-9]+]] = call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK-NEXT: [[LEFT:%[0-9]+]] = load i64, ptr [[ADDR]]
; TICK-NEXT: %quanta.left = sub i64 [[LEFT]], 7
; TICK-NEXT: %quanta.fire = icmp slt i64 %quanta.left, 0
; TICK-NEXT: [[NEW:%[0-9]+]] = select i1 %quanta.fire, i64 1000, i64 %quanta.left
; TICK-NEXT: store i64 [[NEW]], ptr [[ADDR]]
; TICK-NEXT: br i1 %quanta.fire
; TICK: call i64 @llvm.readcyclecounter()
; TICK: exit:
; TICK: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK: %quanta.tick = sub i64 %{{[0-9]+}}, 5
; TICK-NOT: quanta.budget
; TICK: ret i64
; OFF-LABEL: define i64 @many(
; OFF: %s = call i64 @sum(ptr %l)
; OFF-NEXT: %acc.next = add i64 %acc, %s

; An indirect call that may re-enter the cycle, after 550 units of external calls in the
; same block: the tick it owes, at the loop's exit, charges its path out of the loop (4), and the latch
; charges the whole iteration, the external calls and the indirect call's 50 included
; (603), to the thread's budget. The entry tick's stretch ends at the loop's header (2).
; TICK-LABEL: define void @dispatch(
; TICK: %quanta.tick = sub i64 %{{[0-9]+}}, 2
; TICK: call void %f(ptr %p)
; TICK-NOT: quanta.tick
; TICK: %quanta.left = sub i64 %{{[0-9]+}}, 603
; TICK: exit:
; TICK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK: sub i64 %{{[0-9]+}}, 4
; OFF-LABEL: define void @dispatch(
; OFF: call void %f(ptr %p)
; OFF-NEXT: call i64 @llvm.readcyclecounter()

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

define i64 @many(ptr %lists, i64 %k) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr ptr, ptr %lists, i64 %i
  %l = load ptr, ptr %p
  %s = call i64 @sum(ptr %l)
  %acc.next = add i64 %acc, %s
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %k
  br i1 %c, label %loop, label %exit
exit:
  ret i64 %acc.next
}

declare void @ext(i64)

; @dispatch takes its own address (so an indirect call may reach it: a cycle), and its loop
; calls 11 external functions of 50 each before the indirect call.
define void @dispatch(ptr %p, ptr %f, i64 %n) {
entry:
  store ptr @dispatch, ptr %p
  br label %top
top:
  %i = phi i64 [ 0, %entry ], [ %i.next, %top ]
  call void @ext(i64 1)
  call void @ext(i64 2)
  call void @ext(i64 3)
  call void @ext(i64 4)
  call void @ext(i64 5)
  call void @ext(i64 6)
  call void @ext(i64 7)
  call void @ext(i64 8)
  call void @ext(i64 9)
  call void @ext(i64 10)
  call void @ext(i64 11)
  call void %f(ptr %p)
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %top, label %exit
exit:
  ret void
}
