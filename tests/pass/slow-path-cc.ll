; On x86-64 the probes call their slow paths with preserve_most, by default in flag mode
; only (clock mode with -quanta-slow-path-preserve-most=1): the declaration, every call
; (those the module already had, as from quanta/probe.h's inline probes, too), a polled
; loop's probes, and the clock twins of a flag module. nonlazybind: in PIC
; code the call goes through the GOT, never through a lazily bound PLT entry, whose resolver
; may clobber r10. Probes call a private stub that jumps on (musttail), so that no loop
; keeps the GOT entry's address in a register.
; RUN: %opt -passes=quanta-clock -quanta-bound=10 -quanta-slow-path-preserve-most=1 -S %s | FileCheck %s --check-prefix=CLOCK
; RUN: %opt -passes=quanta-flag -quanta-bound=10 -S %s | FileCheck %s --check-prefix=FLAG
; RUN: %opt -passes=quanta-clock -quanta-bound=10 -S %s | FileCheck %s --check-prefix=OFF
; RUN: %opt -passes=quanta-clock -quanta-bound=10 -quanta-slow-path-preserve-most=0 -S %s | FileCheck %s --check-prefix=OFF
; RUN: %opt -passes=quanta-flag -quanta-slow-path-preserve-most=0 -S %s | FileCheck %s --check-prefix=FLAGOFF
; Code generation: a GOT call in PIC, and a hot loop whose values outlive the probe keeps
; them in registers the C convention would clobber.
; RUN: %opt -passes=quanta-flag -S %s | %llc -O2 -relocation-model=pic | FileCheck %s --check-prefix=ASM
; RUN: %opt -passes=quanta-clock -quanta-bound=10 -quanta-slow-path-preserve-most=1 -S %s | %llc -O2 -relocation-model=pic | FileCheck %s --check-prefix=CASM
; Code that is not position-independent keeps C: its calls to the runtime in libquanta.so
; would go through a lazily bound PLT entry (no GOT call without PIC).
; RUN: sed '/PIC Level/d; /llvm.module.flags/d' %s | %opt -passes=quanta-flag -quanta-slow-path-preserve-most=1 -S | FileCheck %s --check-prefix=FLAGOFF
; Other targets keep C: the runtime defines the slow paths so on x86-64 only.
; RUN: sed 's/x86_64-unknown-linux-gnu/aarch64-unknown-linux-gnu/' %s | %opt -passes=quanta-clock -quanta-bound=10 -quanta-slow-path-preserve-most=1 -S | FileCheck %s --check-prefix=OFF
; Flag mode's probes are x86-64 code: another target is an error naming it, not an asm the
; assembler rejects later.
; RUN: sed 's/x86_64-unknown-linux-gnu/aarch64-unknown-linux-gnu/' %s | not %opt -passes=quanta-flag -S -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTX86
; NOTX86: error: quanta pass: flag mode's probes are x86-64 code (the runtime's only target); this module targets 'aarch64-unknown-linux-gnu'
target triple = "x86_64-unknown-linux-gnu"

declare void @quanta_probe_slow()

; CLOCK: declare preserve_mostcc void @quanta_probe_slow() [[ATTR:#[0-9]+]]
; CLOCK-LABEL: define i64 @chain(
; CLOCK: call i64 @llvm.readcyclecounter()
; CLOCK: call preserve_mostcc void @__quanta_probe_slow_stub()
; CLOCK-LABEL: define void @hand_probe(
; CLOCK-NEXT: call preserve_mostcc void @quanta_probe_slow()
; CLOCK-LABEL: define private preserve_mostcc void @__quanta_probe_slow_stub()
; CLOCK-NEXT: entry:
; CLOCK-NEXT: musttail call preserve_mostcc void @quanta_probe_slow()
; CLOCK-NEXT: ret void
; CLOCK: attributes [[ATTR]] = { nonlazybind }
; OFF: declare void @quanta_probe_slow(){{$}}
; OFF-LABEL: define i64 @chain(
; OFF: call void @quanta_probe_slow()
; OFF-LABEL: define void @hand_probe(
; OFF-NEXT: call void @quanta_probe_slow()
; OFF-NOT: _stub
; CASM-LABEL: chain:
; CASM: callq .L__quanta_probe_slow_stub
; CASM-LABEL: hand_probe:
; CASM: callq *quanta_probe_slow@GOTPCREL(%rip)
; CASM-LABEL: .L__quanta_probe_slow_stub:
; CASM-NEXT: # %bb.0:
; CASM-NEXT: jmpq *quanta_probe_slow@GOTPCREL(%rip) # TAILCALL
define i64 @chain(i64 %x) {
  %a1 = add i64 %x, 1
  %a2 = mul i64 %a1, %x
  %a3 = add i64 %a2, 3
  %a4 = mul i64 %a3, %a1
  %a5 = add i64 %a4, 5
  %a6 = mul i64 %a5, %a2
  %a7 = add i64 %a6, 7
  %a8 = mul i64 %a7, %a3
  %a9 = add i64 %a8, 9
  %a10 = mul i64 %a9, %a4
  %a11 = add i64 %a10, 11
  %a12 = mul i64 %a11, %a5
  %a13 = add i64 %a12, 13
  ret i64 %a13
}

; A probe written by hand (quanta_probe() of quanta/probe.h): its call takes the convention
; of the declaration, or InstCombine would take the mismatch for undefined behaviour.
define void @hand_probe() {
  call void @quanta_probe_slow()
  ret void
}

; Flag mode: a polled loop (no calls; the @scan of flag-poll.ll) calls the slow path
; through the stub like any probe.
; FLAG-LABEL: define i64 @scan(
; FLAG: load atomic volatile i32
; FLAG: call preserve_mostcc void @__quanta_flag_probe_slow_stub()
; FLAG: ret i64
; The clock twin of @chain (-quanta-bound=10 gives it a probe) calls as the flag code does.
; FLAG-LABEL: define internal i64 @chain.quanta_clock(
; FLAG: call preserve_mostcc void @__quanta_probe_slow_stub()
; FLAG: declare preserve_mostcc void @quanta_flag_probe_slow() [[FATTR:#[0-9]+]]
; FLAG: define private preserve_mostcc void @__quanta_flag_probe_slow_stub() [[SATTR:#[0-9]+]] {
; FLAG: musttail call preserve_mostcc void @quanta_flag_probe_slow()
; FLAG-DAG: attributes [[SATTR]] = { cold noinline nounwind }
; FLAG-DAG: attributes [[FATTR]] = { nonlazybind }
; FLAGOFF-LABEL: define i64 @scan(
; FLAGOFF: call void @quanta_flag_probe_slow()

; Code: the flag's offset is read once before the loop, which reads the flag %fs-relative
; and keeps its values in rax, rcx, rdx, rsi, rdi, r8-r10 across the slow path's call (no
; stack access in it). The stub jumps on through the GOT.
; ASM-LABEL: scan:
; ASM-NOT: (%rsp)
; ASM: movq quanta_preempt_flag@GOTTPOFF(%rip), [[TP:%r[a-z0-9]+]]
; ASM-NOT: (%rsp)
; ASM: movl %fs:([[TP]]),
; ASM-NOT: (%rsp)
; ASM: callq .L__quanta_flag_probe_slow_stub
; ASM-NOT: (%rsp)
; ASM: retq
; ASM-LABEL: .L__quanta_flag_probe_slow_stub:
; ASM-NEXT: # %bb.0:
; ASM-NEXT: jmpq *quanta_flag_probe_slow@GOTPCREL(%rip)
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

; -fPIC / -fPIE (Debian's clang builds PIE by default).
!llvm.module.flags = !{!0}
!0 = !{i32 8, !"PIC Level", i32 2}
