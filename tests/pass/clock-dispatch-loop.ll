; An interpreter's dispatch loop: most iterations run a cheap opcode, a rare one calls back
; into the interpreter (a call-graph cycle, so the call counts as the whole bound). The
; longest iteration then costs more than half the bound, yet the path every iteration runs
; is cheap: the loop is lopsided and keeps a budget (Counter) instead of probing on every
; iteration (Every). The rare call path charges the budget only when it runs. The callee
; may return from a tick, so nothing after the call is on a path from a clock read: the
; loop's budget is the thread's tick budget, the one the ticks charge: the header
; subtracts what every iteration runs (5) and what the blocks some iterations run have
; added up in a register since, the call block all of its own (4: the depth's add, the
; call's unit, nothing for the callee's start, which its entry tick charges, the add after
; it and the branch). No tick follows the call: the blocks charge what runs after it, and
; no path leaves the loop from it but through the header, which the loop charges. The
; preheader reads no clock: the loop charges its first iteration as every other. The
; opcodes between two calls then run down the same budget as the ticks, with no loan to
; restart.
; RUN: %opt -passes='print<quanta-plan>' -quanta-bound=1000 -disable-output %s 2>&1 | FileCheck %s --check-prefix=PLAN
; RUN: %opt -passes=quanta-clock -quanta-bound=1000 -quanta-adaptive=0 -S %s | FileCheck %s --check-prefix=TICK
; With -quanta-cycle-ticks=0 a clock probe follows the call, and the budget restarts at the
; bound less what follows it in the block.
; RUN: %opt -passes=quanta-clock -quanta-bound=1000 -quanta-adaptive=0 -quanta-cycle-ticks=0 -S %s | FileCheck %s

; TICK-LABEL: define i32 @run(
; TICK-NOT: quanta.budget
; The entry tick's slow path is the only clock read before the loop.
; TICK: %quanta.tick = sub i64 %{{[0-9]+}}, 1
; TICK: call i64 @llvm.readcyclecounter()
; TICK-NOT: call i64 @llvm.readcyclecounter()
; TICK: dispatch:
; TICK-NEXT: %quanta.pending.0 = phi
; TICK-NEXT: phi
; TICK-NEXT: phi
; TICK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_tick_budget)
; TICK-NEXT: load i64
; TICK-NEXT: [[SUM:%[0-9]+]] = add i64 5, %quanta.pending.0
; TICK-NEXT: %quanta.left = sub i64 %{{[0-9]+}}, [[SUM]]
; TICK: select i1 %quanta.fire, i64 1000, i64 %quanta.left
; The blocks' charges add up in a register; the header's check takes them.
; TICK: add:
; TICK-NOT: call i64 @llvm.readcyclecounter()
; TICK-NOT: quanta_tick_budget
; TICK: %quanta.charge{{[0-9]*}} = add i64 0, 2
; TICK: call:
; TICK-NOT: quanta.flush
; TICK: %r = call i32 @run(
; TICK-NEXT: %a2 = add i32 %acc, %r
; TICK-NEXT: %quanta.charge{{[0-9]*}} = add i64 0, 4
; TICK: next:
; TICK-NOT: quanta.budget
; TICK: ret i32

; PLAN-LABEL: function run: entry tick, charge 1 (on a call-graph cycle)
; PLAN-NEXT: loop dispatch: Counter {{.*}}budget=thread charge=5: lopsided

declare i32 @ext(i32)

; The cheap opcode's path reaches no clock read: the header only subtracts what every
; iteration runs from the budget, and the recursive call is followed by a probe.
; CHECK-LABEL: define i32 @run(
; CHECK: dispatch:
; CHECK-NOT: call i64 @llvm.readcyclecounter()
; CHECK: sub i64 %quanta.budget{{.*}}, 5
; CHECK: add:
; CHECK-NOT: call i64 @llvm.readcyclecounter()
; CHECK: call:
; CHECK: %r = call i32 @run(
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; That probe starts a fresh budget: the block leaves the bound less what follows it (2),
; rather than charging the call's whole bound and making the budget probe again.
; CHECK: next:
; CHECK-NEXT: %quanta.budget.2 = phi i64 {{.*}}[ 998, %{{[0-9]+}} ]
define i32 @run(ptr %code, i32 %depth) {
entry:
  br label %dispatch
dispatch:
  %pc = phi i64 [ 0, %entry ], [ %pc.next, %next ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %next ]
  %p = getelementptr inbounds i8, ptr %code, i64 %pc
  %op = load i8, ptr %p
  switch i8 %op, label %next [ i8 1, label %add
                               i8 2, label %call
                               i8 0, label %done ]
add:
  %a1 = add i32 %acc, 3
  br label %next
call:
  %d1 = add i32 %depth, 1
  %sub = getelementptr inbounds i8, ptr %code, i64 16
  %r = call i32 @run(ptr %sub, i32 %d1)
  %a2 = add i32 %acc, %r
  br label %next
next:
  %acc.next = phi i32 [ %acc, %dispatch ], [ %a1, %add ], [ %a2, %call ]
  %pc.next = add i64 %pc, 1
  br label %dispatch
done:
  ret i32 %acc
}
