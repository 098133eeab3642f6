; Recursion through a function pointer: @visit calls its callback indirectly, and the
; callback @visit_children calls @visit for each child. An indirect call may reach any
; function whose address the module takes, so the two form a call-graph cycle and each
; ticks at entry. @count_leaf is a callback as well but calls nothing: not on a cycle,
; no probe. The indirect call itself keeps its configured cost (50 here, B = 1000), but in a
; function on such a cycle it may return from a function of the cycle with that callee's
; unprobed tail behind it, or return from a tick of that cycle: nothing after it is on a
; path from a clock read, so a tick follows it (charge 1: the return), and @visit may return
; from that tick (ticked-exit), so @visit_children ticks after calling it. @visit's entry
; tick charges the indirect call's 50: its path runs to the post-call tick. With
; -quanta-cycle-ticks=0 a clock probe follows the indirect call instead.
; RUN: %opt -passes='print<quanta-plan>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=PLAN
; PLAN: function visit_children: entry tick, charge 6 (on a call-graph cycle); summary entry=6 exit=3 through=3 ticked-exit=3
; PLAN: function visit: entry tick, charge 50 (on a call-graph cycle); summary entry=50 exit=1 ticked-exit=1
; RUN: %opt -passes=quanta-clock -S %s | FileCheck %s --check-prefix=TICK
; With -quanta-cycle-ticks=0, entry probes:
; RUN: %opt -passes=quanta-clock -quanta-cycle-ticks=0 -S %s | FileCheck %s
; RUN: %opt -passes=quanta-clock -quanta-call-summaries=0 -S %s | FileCheck %s --check-prefix=OLD
; OLD-NOT: readcyclecounter

@total = global i64 0

; TICK-LABEL: define void @visit(
; TICK-NEXT: entry:
; TICK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK: %quanta.tick = sub i64 %{{[0-9]+}}, 50
; TICK: call void %cb(ptr %n)
; TICK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK: sub i64 %{{[0-9]+}}, 1
; TICK-LABEL: define void @visit_children(
; TICK-NEXT: entry:
; TICK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK: call void @visit(ptr %l, ptr @visit_children)
; TICK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK: call void @visit(ptr %r, ptr @count_leaf)
; TICK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK-LABEL: define void @count_leaf(
; TICK-NOT: {{quanta_tick_budget|readcyclecounter}}
; TICK: ret void
; CHECK-LABEL: define void @visit(
; CHECK-NEXT: entry:
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK: call void %cb(ptr %n)
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK-LABEL: define void @visit_children(
; CHECK-NEXT: entry:
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK-LABEL: define void @count_leaf(
; CHECK-NOT: readcyclecounter
; CHECK: ret void
define void @visit(ptr %n, ptr %cb) {
entry:
  call void %cb(ptr %n)
  ret void
}

define void @visit_children(ptr %n) {
entry:
  %null = icmp eq ptr %n, null
  br i1 %null, label %done, label %rec
rec:
  %lp = getelementptr i8, ptr %n, i64 8
  %l = load ptr, ptr %lp
  %rp = getelementptr i8, ptr %n, i64 16
  %r = load ptr, ptr %rp
  call void @visit(ptr %l, ptr @visit_children)
  call void @visit(ptr %r, ptr @count_leaf)
  br label %done
done:
  ret void
}

define void @count_leaf(ptr %n) {
  %t = load i64, ptr @total
  %t1 = add i64 %t, 1
  store i64 %t1, ptr @total
  ret void
}
