; Flag mode, a branchy loop with no calls (a scanner): the flag is read on every iteration
; at an %fs-relative address (address space 257) computed once before the loop and kept
; in a register, so the probe is one load, compare and never-taken branch. A strided
; probe's branch, taken once per stride, mispredicts in a loop whose other branches follow
; the data (string_match: +12% against +2% polled). The address holds on whichever thread
; the task resumes after a slow path, so nothing refreshes it; an inner loop's own probe
; reads the same register. A loop with a call keeps its stride.
; Where: at the top of the header when several paths meet at the latch (@scan), so the
; code generator can still copy the short latch into each path; at the end of a latch
; that one path reaches (@skip), so a loop entered for one iteration reads no flag.
; The O3 RUN line checks that -O3 after the pass keeps the volatile flag load inside
; the loop.
; RUN: %opt -passes=quanta-flag -S %s | FileCheck %s
; RUN: %opt -passes='quanta-flag,default<O3>' -S %s | FileCheck %s --check-prefix=O3
; RUN: %opt -passes=quanta-flag -quanta-flag-poll-at=latch -S %s | FileCheck %s --check-prefix=LATCH
; RUN: %opt -passes=quanta-flag -quanta-flag-poll-at=top -S %s | FileCheck %s --check-prefix=TOP

declare void @ext(i64)

; The inner loop is strided under a parent that polls every iteration: each entry starts a
; whole stride, a mask of its iterations, so no distance is kept across entries (no
; quanta.left slot).
; CHECK-LABEL: define i64 @scan(
; CHECK-NOT: quanta.left
; CHECK: [[OFF:%.*]] = call i64 asm sideeffect "movq quanta_preempt_flag@gottpoff(%rip), $0", "=r"()
; CHECK-NEXT: [[P:%.*]] = inttoptr i64 [[OFF]] to ptr addrspace(257)
; CHECK-NEXT: br label %loop
; CHECK: loop:
; CHECK-NOT: phi ptr
; CHECK: [[F:%.*]] = load atomic volatile i32, ptr addrspace(257) [[P]]
; CHECK-NEXT: [[SET:%.*]] = icmp ne i32 [[F]], 0
; CHECK-NEXT: br i1 [[SET]]
; CHECK: call void @quanta_flag_probe_slow()
; CHECK: inner:
; CHECK-NOT: {{threadlocal.address|quanta.left|load volatile|asm sideeffect}}
; CHECK: %quanta.stride = and i64 %quanta.iters, 127
; CHECK-NOT: {{threadlocal.address|asm sideeffect}}
; CHECK: load atomic volatile i32, ptr addrspace(257) [[P]]
; CHECK-NOT: {{threadlocal.address|asm sideeffect}}
; CHECK: call void @quanta_flag_probe_slow()
; CHECK-NOT: {{threadlocal.address|asm sideeffect}}
; CHECK: latch:
; CHECK-NOT: load atomic volatile
; CHECK: br i1 %done, label %exit, label %loop
; CHECK: ret i64

; With -quanta-flag-poll-at=latch the read is at the end of the latch instead.
; LATCH-LABEL: define i64 @scan(
; LATCH: loop:
; LATCH-NOT: load atomic volatile i32
; LATCH: inner:
; LATCH: latch:
; LATCH: %done = icmp eq
; LATCH-NEXT: [[F:%.*]] = load atomic volatile i32, ptr addrspace(257)
; LATCH-NEXT: [[SET:%.*]] = icmp ne i32 [[F]], 0
; LATCH-NEXT: br i1 [[SET]]
; LATCH: call void @quanta_flag_probe_slow()
; LATCH: br i1 %done, label %exit, label %loop

; O3-LABEL: define {{.*}} @scan(
; O3: asm sideeffect "movq quanta_preempt_flag@gottpoff
; O3: {{^}}loop:
; O3: load atomic volatile i32, ptr addrspace(257)
; O3: br i1 %{{.*}}, label %exit, label %loop
define i64 @scan(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %latch ]
  %p = getelementptr inbounds i8, ptr %a, i64 %i
  %c = load i8, ptr %p
  %nl = icmp eq i8 %c, 10
  br i1 %nl, label %word, label %latch
word:
  %w = zext i8 %c to i64
  %t = mul i64 %s, 33
  %u = add i64 %t, %w
  br label %inner
inner:
  %j = phi i64 [ 0, %word ], [ %j.next, %inner ]
  %h = phi i64 [ %u, %word ], [ %h.next, %inner ]
  %q = getelementptr inbounds i8, ptr %a, i64 %j
  %d = load i8, ptr %q
  %dz = zext i8 %d to i64
  %h.next = add i64 %h, %dz
  %j.next = add i64 %j, 1
  %jd = icmp eq i64 %j.next, %i
  br i1 %jd, label %latch.w, label %inner
latch.w:
  br label %latch
latch:
  %s.next = phi i64 [ %s, %loop ], [ %h.next, %latch.w ]
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %s.next
}

; A latch that one path reaches: the read goes at its end, so an entry that leaves from
; the header (the first byte is not a space) reads no flag; -quanta-flag-poll-at=top moves
; it to the header.
; CHECK-LABEL: define i64 @skip(
; CHECK: loop:
; CHECK-NOT: load atomic volatile i32
; CHECK: latch:
; CHECK: %done = icmp eq
; CHECK-NEXT: load atomic volatile i32, ptr addrspace(257)
; CHECK: ret i64
; TOP-LABEL: define i64 @skip(
; TOP: loop:
; TOP-NEXT: %i = phi
; TOP-NEXT: load atomic volatile i32, ptr addrspace(257)
define i64 @skip(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %p = getelementptr inbounds i8, ptr %a, i64 %i
  %c = load i8, ptr %p
  %sp = icmp eq i8 %c, 32
  br i1 %sp, label %latch, label %exit
latch:
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = phi i64 [ %i, %loop ], [ %n, %latch ]
  ret i64 %r
}

; CHECK-LABEL: define i64 @scan_calls(
; CHECK: loop:
; CHECK: %quanta.fire = icmp slt i64
; CHECK: call i64 asm sideeffect "movq quanta_preempt_flag@gottpoff
; CHECK: call void @quanta_flag_probe_slow()
; CHECK: ret i64

define i64 @scan_calls(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %p = getelementptr inbounds i8, ptr %a, i64 %i
  %c = load i8, ptr %p
  %nl = icmp eq i8 %c, 10
  br i1 %nl, label %rare, label %latch
rare:
  call void @ext(i64 %i)
  br label %latch
latch:
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %i
}
