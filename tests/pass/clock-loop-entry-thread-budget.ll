; A loop entered with a path from a clock read that cannot also afford its first iteration
; (997 units of external calls and their tick, then an iteration of 7, bound 1000). In
; @once, on no call-graph cycle, a clock probe goes in the preheader, once per entry. In
; @walk, which is on a cycle (it calls itself) and starts with a tick, a tick may go at the
; preheader: the loop charges the thread's tick budget instead of a budget of its own, so
; its iterations are ticked code, charged at the latch from the first one on, and no clock
; is read before it (sqlite3VdbeExec's record-building loop read the clock on every entry).
; RUN: %opt -passes='print<quanta-plan>' -quanta-ext-call-cost=332 -disable-output %s 2>&1 | FileCheck %s --check-prefix=PLAN
; RUN: %opt -passes=quanta-clock -quanta-ext-call-cost=332 -pass-remarks=quanta -disable-output %s 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: %opt -passes=quanta-clock -quanta-ext-call-cost=332 -quanta-adaptive=0 -S %s | FileCheck %s
; With -quanta-cycle-ticks=0 @walk probes at entry and its loop keeps a budget of its own.
; RUN: %opt -passes='print<quanta-plan>' -quanta-ext-call-cost=332 -quanta-cycle-ticks=0 -disable-output %s 2>&1 | FileCheck %s --check-prefix=OFF

; PLAN: function walk: entry tick
; PLAN-NEXT: loop loop: Counter iter-cost=7 bound=1000 budget=thread charge=7: a clock read before it would not fit: it charges the thread's tick budget
; PLAN: function once: summary
; PLAN-NEXT: loop loop: Counter iter-cost=7 bound=1000 budget=1000 charge=7: no induction variable fit to count on
; OFF: function walk: entry probe
; OFF-NEXT: loop loop: Counter iter-cost=7 bound=1000 budget=1000

; REMARK-NOT: probe in the preheader
; REMARK: budget=thread charge=7: a clock read before it would not fit
; REMARK: probe in the preheader: the path (997) cannot also afford the loop
; REMARK-NOT: probe in the preheader

; The tick after the third call (charge 1: its stretch ends at the loop's header) is the
; last before the loop, and it reads the clock only on its slow path.
; CHECK-LABEL: define i64 @walk(
; CHECK-NOT: quanta.budget
; CHECK: call void @ext()
; CHECK: call void @ext()
; CHECK: call void @ext()
; CHECK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; CHECK-NEXT: load i64
; CHECK-NEXT: %quanta.tick{{[0-9]+}} = sub i64 %{{[0-9]+}}, 1
; CHECK: br i1 %quanta.tickout{{[0-9]+}}, label %[[SLOW:[0-9]+]], label %[[ON:[0-9]+]]
; CHECK: [[SLOW]]:
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK: [[ON]]:
; CHECK-NEXT: br label %loop
; CHECK: loop.loop_crit_edge:
; CHECK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; CHECK: %quanta.left = sub i64 %{{[0-9]+}}, 7
; CHECK-LABEL: define i64 @once(
; CHECK: call void @ext()
; CHECK: call void @ext()
; CHECK: call void @ext()
; CHECK-NEXT: %quanta.now = call i64 @llvm.readcyclecounter()
; CHECK: loop:
; CHECK-NEXT: %quanta.budget.0 = phi i64 [ 1000,
declare void @ext()

define i64 @walk(ptr %n, i64 %d) {
entry:
  call void @ext()
  call void @ext()
  call void @ext()
  br label %loop
loop:
  %p = phi ptr [ %n, %entry ], [ %next, %loop ]
  %acc = phi i64 [ %d, %entry ], [ %acc2, %loop ]
  %v = load i64, ptr %p
  %acc2 = add i64 %acc, %v
  %nextp = getelementptr i8, ptr %p, i64 8
  %next = load ptr, ptr %nextp
  %z = icmp eq ptr %next, null
  br i1 %z, label %done, label %loop
done:
  %stop = icmp sgt i64 %acc2, 100
  br i1 %stop, label %out, label %again
again:
  %r = call i64 @walk(ptr %n, i64 %acc2)
  ret i64 %r
out:
  ret i64 %acc2
}

define i64 @once(ptr %n) {
entry:
  call void @ext()
  call void @ext()
  call void @ext()
  br label %loop
loop:
  %p = phi ptr [ %n, %entry ], [ %next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %acc2, %loop ]
  %v = load i64, ptr %p
  %acc2 = add i64 %acc, %v
  %nextp = getelementptr i8, ptr %p, i64 8
  %next = load ptr, ptr %nextp
  %z = icmp eq ptr %next, null
  br i1 %z, label %done, label %loop
done:
  ret i64 %acc2
}
