/* quanta probe ABI: what instrumented code (compiler-placed probes or hand-written
 * handlers) calls to give up the CPU when its quantum is over.
 *
 * The contract, shared by the runtime and the compiler pass:
 *  - quanta_deadline_tsc: thread-local. The cycle-counter value at which the task running
 *    on this thread should yield. UINT64_MAX whenever no preemptible task is running
 *    (dispatcher, plain threads, preemption disabled, a non-preemptive policy), so a probe
 *    executed there never fires.
 *  - quanta_preempt_flag: thread-local, one cache line of its own; word 0 is this thread's
 *    preemption flag, which a monitor on another thread writes through the address the
 *    worker published (the rest of the line is padding). Zero on every thread no monitor
 *    writes. The probe must read word 0 afresh on every execution, with one load no
 *    compiler may merge or hoist (the pass: volatile, atomic relaxed but under
 *    ThreadSanitizer; quanta_flag_probe() below: an asm): a plain load may be hoisted out of
 *    a loop and the task would never see the flag. Thread-local rather than a pointer to a
 *    line elsewhere so that a probe is one load, not two dependent ones.
 *  - quanta_tick_budget: thread-local, signed, in the pass's IR cost units. A tick (the entry
 *    of a function on a call-graph cycle, the return from a call that may end in one) or a
 *    loop on the thread's budget subtracts its charge and reads the clock only when the
 *    budget goes below zero: through quanta_tick_gap() (quanta/clock_gap.h), which refills
 *    it with the thread's next adaptive gap, or, built with -quanta-adaptive=0, inline as a
 *    probe does, restarting it at B - charge. Starts at 0 (the first tick on a thread reads
 *    the clock); only quanta_tick_gap() writes it in the runtime: tasks that share a thread
 *    share it, and it stays at most the longest gap whoever spent it.
 *  - quanta_probe_slow(): out-of-line slow path. Yields if preemption is enabled, else
 *    records a pending preemption that the matching quanta_preempt_enable() honours.
 *  - quanta_clock_gap() (quanta/clock_gap.h): what the pass's adaptive loop probes call
 *    when their countdown runs out; it yields through quanta_probe_slow() and returns the
 *    loop's next gap. quanta_tick_gap() does the same for the thread's tick budget.
 *
 * All three variables use the initial-exec TLS model so a probe is one %fs-relative load.
 */
#ifndef QUANTA_PROBE_H
#define QUANTA_PROBE_H

#include <stdint.h>

#include "quanta/clock_gap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QUANTA_TLS __attribute__((tls_model("initial-exec")))

extern __thread uint64_t quanta_deadline_tsc QUANTA_TLS;
extern __thread volatile uint32_t quanta_preempt_flag[16] QUANTA_TLS __attribute__((aligned(64)));
extern __thread int64_t quanta_tick_budget QUANTA_TLS;

/* Slow paths: called only when a probe fires. Not inlined on purpose: keeps the probe
 * small enough that the compiler does not spill around it.
 *
 * The runtime defines both with clang's preserve_most convention on x86-64: they keep every
 * general-purpose register but r11 (and the flags and vector registers, as C does not),
 * so that the pass's probes, which call them that way (flag mode, by default), do not make a
 * hot loop spill around them (docs/pass-internals.md, "Slow-path convention"). A caller that uses the C
 * convention, as these declarations do, is still right: it only assumes that fewer
 * registers survive. They stay C here so that any compiler can call them, and so that a
 * call through a lazily bound PLT, whose resolver may clobber r10, is right too.
 * QUANTA_SLOW_PATH_CC is for the runtime's own definitions (probe_abi.cc). */
#ifndef QUANTA_SLOW_PATH_CC
#define QUANTA_SLOW_PATH_CC
#endif
QUANTA_SLOW_PATH_CC void quanta_probe_slow(void);
QUANTA_SLOW_PATH_CC void quanta_flag_probe_slow(void);

/* Gives up the CPU now (if preemption is enabled). A no-op outside a task. */
void quanta_yield(void);

/* Cycles the running task has been on the CPU so far, not counting the time it spent
 * preempted; 0 outside a task. A handler that must consume a given amount of CPU (the
 * synthetic spin handler) loops on this. Also a safe point: a preemption signal that
 * arrived while the task was in code the signal may not switch is honoured here. */
uint64_t quanta_task_cpu_cycles(void);

/* The same, for a handler that calls it in a tight loop (every microsecond or more often,
 * as the synthetic spin handler does): the runtime also takes each call as a clock read of
 * the worker, and a gap between two calls in one quantum above the stall threshold
 * (`--stall-threshold-us`) is logged as a host stall. A handler that does long work of its
 * own between calls must use quanta_task_cpu_cycles(), or its work is counted as stalls. */
uint64_t quanta_task_cpu_cycles_polled(void);

/* When the running task's last quantum ended: the cycle count at which its runner got
 * the CPU back from it (its last yield, or preemption); 0 outside a task or before its
 * first stop. Adaptive clock probes compare it with the deadline they yielded at, so that
 * they learn how late a yield really lands, the runtime's switch included. */
uint64_t quanta_task_last_stop_tsc(void);

/* Nesting counter. While it is above zero a probe or a yield never switches; a
 * preemption that falls inside is deferred to the enable that brings it back to zero. */
void quanta_preempt_disable(void);
void quanta_preempt_enable(void);

/* Marks a function the compiler pass must not instrument, and that runs with preemption
 * untouched. Use on code that must not be re-entered by another task of the same worker. */
#define QUANTA_NO_PREEMPT __attribute__((annotate("quanta_no_preempt"), noinline))

static inline uint64_t quanta_read_tsc(void) {
  uint32_t lo, hi;
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  return ((uint64_t)hi << 32) | lo;
}

/* This thread's deadline and flag, read through %fs at every probe. A task may
 * resume on another thread after its probe yields, and the compiler takes a thread-local's
 * address as fixed within a function: code that keeps the address it computed before the
 * yield would read the old thread's variable (ThreadSanitizer builds do: TSan needs the
 * address itself). The asm is the same single %fs-relative load a plain read compiles to. */
static inline uint64_t quanta_this_thread_deadline_tsc(void) {
  uint64_t deadline;
  __asm__ volatile("movq quanta_deadline_tsc@gottpoff(%%rip), %0\n\tmovq %%fs:(%0), %0" : "=r"(deadline));
  return deadline;
}

/* Word 0 of quanta_preempt_flag, read %fs-relative at the variable's offset as the pass's
 * flag probes read it: one load, which sees the monitor's store or the value before it. */
static inline uint32_t quanta_this_thread_flag(void) {
  uint64_t flag;
  __asm__ volatile("movq quanta_preempt_flag@gottpoff(%%rip), %0\n\tmovl %%fs:(%0), %k0" : "=r"(flag));
  return (uint32_t)flag;
}

/* Clock probe (Tiny Quanta): one TLS load, one rdtsc, one compare. */
static inline void quanta_probe(void) {
  if (__builtin_expect(quanta_read_tsc() >= quanta_this_thread_deadline_tsc(), 0)) quanta_probe_slow();
}

/* Flag probe (Concord): one volatile load of the thread's flag line. */
static inline void quanta_flag_probe(void) {
  if (__builtin_expect(quanta_this_thread_flag() != 0, 0)) {
    quanta_flag_probe_slow();
  }
}

#ifdef __cplusplus
}
#endif

#endif /* QUANTA_PROBE_H */
