; Flag mode places its polls by clock mode's bounded-path walk (Placement.cpp), with
; -quanta-flag-stride (1000 units) as the bound: a poll only where a probe-free path would
; pass it, calls to functions of the module by their summaries, external and indirect calls
; at -quanta-ext-call-cost (50), a poll first in every function on a call-graph cycle
; (never a tick), loops strided in flag units or polled. No poll at every function's entry
; or after every external call (Concord's rules, which this placement replaced).
; RUN: %opt -passes=quanta-flag -quanta-flag-twins=0 -S %s | FileCheck %s
; RUN: %opt -passes=quanta-flag -S %s | FileCheck %s --check-prefix=TWINS
; RUN: %opt -passes=quanta-flag -quanta-flag-twins=0 -quanta-flag-stride=500 -S %s | FileCheck %s --check-prefix=B500

; No tick anywhere in the flag code: a function on a cycle polls the flag at its entry.
; CHECK-NOT: quanta_tick_budget

; The external call (50) and the loop's first iteration fit under the bound: no poll before
; the loop; the loop (body cost 6) polls every 128 iterations on its IV (1000 / 6 rounded
; down to a power of two), a mask of its iterations beside its exit compare
; (clock-loop-exit-merge.ll).
; CHECK-LABEL: define i64 @handler(
; CHECK-NEXT: entry:
; CHECK-NOT: quanta_preempt_flag
; CHECK: %e = call i64 @external(
; CHECK-NOT: quanta_preempt_flag
; CHECK: loop:
; CHECK: %quanta.stride = and i64 %quanta.iters, 127
; CHECK: load atomic volatile i32
; CHECK: call void @quanta_flag_probe_slow()
; CHECK: ret i64
define i64 @handler(ptr %a, i64 %n) {
entry:
  %e = call i64 @external(i64 %n)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ %e, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  %v = load i64, ptr %p
  %s.next = add i64 %s, %v
  %i.next = add nuw i64 %i, 1
  %end = icmp eq i64 %i.next, %n
  br i1 %end, label %done, label %loop
done:
  ret i64 %s.next
}

; CHECK-LABEL: define i64 @leaf(
; CHECK-NOT: quanta_preempt_flag
; CHECK: ret i64
define i64 @leaf(i64 %x) {
  %y = mul i64 %x, 3
  ret i64 %y
}

; A small function with a call into the module and calls out of it (an allocator wrapper):
; every path is far under the bound, so no poll at its entry or after its calls.
; CHECK-LABEL: define ptr @api(
; CHECK-NOT: quanta_preempt_flag
; CHECK: ret ptr %q
define ptr @api(ptr %p, i64 %n) {
entry:
  %z = icmp eq i64 %n, 0
  br i1 %z, label %free, label %grow
free:
  call void @free(ptr %p)
  ret ptr null
grow:
  %m = call i64 @leaf(i64 %n)
  %q = call ptr @realloc(ptr %p, i64 %m)
  ret ptr %q
}

; 25 external calls: 20 of them (1000 units) fit, the 21st would pass the bound, so one poll
; between the 20th and the 21st (with a bound of 500, polls before the 11th and the 21st).
; CHECK-LABEL: define void @many(
; CHECK-COUNT-20: call void @ext()
; CHECK-NEXT: call i64 asm sideeffect "movq quanta_preempt_flag@gottpoff
; CHECK-NOT: quanta_preempt_flag
; CHECK: ret void
; B500-LABEL: define void @many(
; B500-COUNT-10: call void @ext()
; B500-NEXT: call i64 asm sideeffect "movq quanta_preempt_flag@gottpoff
; B500-COUNT-10: call void @ext()
; B500-NEXT: call i64 asm sideeffect "movq quanta_preempt_flag@gottpoff
; B500-NOT: quanta_preempt_flag
; B500: ret void
define void @many() {
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
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  call void @ext()
  ret void
}

; Recursion: a poll first (after the allocas), and one after the recursive call, which may
; come back with the bound spent.
; CHECK-LABEL: define i64 @rec(
; CHECK-NEXT: entry:
; CHECK-NEXT: %slot = alloca i64
; CHECK-NEXT: call i64 asm sideeffect "movq quanta_preempt_flag@gottpoff
; CHECK: %s = call i64 @rec(
; CHECK-NEXT: call i64 asm sideeffect "movq quanta_preempt_flag@gottpoff
; CHECK: ret i64 %r
define i64 @rec(ptr %n) {
entry:
  %slot = alloca i64
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

; A caller outside the cycle: @rec polls first and leaves a short end, @leaf none: no poll.
; CHECK-LABEL: define i64 @outer(
; CHECK-NOT: quanta_preempt_flag
; CHECK: ret i64 %b
define i64 @outer(ptr %n) {
entry:
  %a = call i64 @rec(ptr %n)
  %b = call i64 @leaf(i64 %a)
  ret i64 %b
}

; With twins: the flag functions are placed as above, and each clock twin by clock mode's
; own summaries (the twins' calls go to twins): @rec's twin starts with a tick.
; TWINS-LABEL: define i64 @rec(
; TWINS-NOT: quanta_tick_budget
; TWINS: call i64 asm sideeffect "movq quanta_preempt_flag@gottpoff
; TWINS-NOT: quanta_tick_budget
; TWINS: ret i64 %r
; TWINS-LABEL: define i64 @outer(
; TWINS-NOT: quanta_preempt_flag
; TWINS: ret i64 %b
; TWINS-LABEL: define internal i64 @rec.quanta_clock(
; TWINS-NOT: quanta_preempt_flag
; TWINS: quanta_tick_budget
; TWINS-NOT: quanta_preempt_flag
; TWINS: call i64 @rec.quanta_clock(
; TWINS-NOT: quanta_preempt_flag
; TWINS: ret i64 %r
; TWINS-LABEL: define internal i64 @outer.quanta_clock(
; TWINS-NOT: quanta_preempt_flag
; TWINS: call i64 @rec.quanta_clock(
; TWINS-NOT: quanta_preempt_flag
; TWINS: ret i64 %b

declare i64 @external(i64)
declare void @ext()
declare void @free(ptr)
declare ptr @realloc(ptr, i64)
