// The probe ABI's out-of-line half: what happens when a probe fires, the clock half of the
// pass's adaptive loop probes, explicit yields, and the preempt-disable counter. The inline
// half is in include/quanta/probe.h.
//
// The two slow paths are defined with preserve_most (probe.h says why; the pass calls them
// that way on x86-64). Defined before any include, so that probe.h declares them so in this
// file only. Their bodies are ordinary C++: clang saves, in their own frame on the task's
// stack, each register the convention keeps that they or their callees may clobber, and
// restores it on return, on whichever thread the task resumes.
#if !defined(__clang__) || !defined(__x86_64__)
#error "the probe slow paths need clang's preserve_most on x86-64 (the pass calls them with it)"
#endif
#define QUANTA_SLOW_PATH_CC __attribute__((preserve_most))
#include "core/task.h"
#include "preempt/clock_gap.h"
#include "preempt/preempt_state.h"
#include "quanta/clock_gap.h"
#include "quanta/probe.h"

extern "C" {
__thread uint64_t quanta_deadline_tsc QUANTA_TLS = UINT64_MAX;
__thread volatile uint32_t quanta_preempt_flag[16] QUANTA_TLS __attribute__((aligned(64))) = {};
__thread int64_t quanta_tick_budget QUANTA_TLS = 0;
}

namespace quanta {

constinit thread_local PreemptState t_preempt_state QUANTA_TLS;

namespace {

// A flag is for this quantum only if it names it; an older value is a monitor's late
// store for a quantum that already ended, and is cleared.
bool flag_names_this_quantum(PreemptState& state) {
  if (state.flag_checks_clock) return false;  // no monitor: the clock decides (and the word stays set)
  const uint32_t value = __atomic_load_n(&quanta_preempt_flag[0], __ATOMIC_RELAXED);
  if (value == 0) return false;
  if (value == state.flag_seq) return true;
  __atomic_store_n(&quanta_preempt_flag[0], 0u, __ATOMIC_RELAXED);
  return false;
}

// Reads the calling thread's state afresh. Out of line on purpose: after a yield the task
// may run on another thread, and a caller could still hold the thread-local's address
// from before the switch.
__attribute__((noinline)) uint64_t running_task_cpu_cycles() {
  const PreemptState& state = t_preempt_state;
  if (!state.in_task) return 0;
  return state.attained_before_cycles + (quanta_read_tsc() - state.quantum_start_tsc);
}

void yield_or_defer() {
  PreemptState& state = quanta::t_preempt_state;
  if (!state.in_task) return;  // a probe in code that is not a task never switches
  if (state.disable_depth > 0) {
    state.pending = true;
    quanta_deadline_tsc = UINT64_MAX;  // mute further probes until the enable
    return;
  }
  TaskRunner::current()->yield_running();
}

}  // namespace

uint32_t* this_thread_flag_word() {
  __atomic_store_n(&quanta_preempt_flag[0], 0u, __ATOMIC_RELAXED);
  return const_cast<uint32_t*>(&quanta_preempt_flag[0]);
}

// Set for good: every flag probe on this thread takes the slow path, which reads the clock
// first (quanta_flag_probe_slow) and never clears it.
void check_clock_at_flag_probes() {
  t_preempt_state.flag_checks_clock = true;
  __atomic_store_n(&quanta_preempt_flag[0], 1u, __ATOMIC_RELAXED);
}

// The adaptive clock probe (include/quanta/clock_gap.h); its rules are in clock_gap.cc.
namespace {

// A clock read that waits for every older instruction to finish (rdtscp does; rdtsc may
// run ahead of older loads still in flight).
uint64_t read_tsc_drained() {
  uint32_t lo, hi, aux;
  __asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
  return ((uint64_t)hi << 32) | lo;
}

// The probe after its yield. Out of line, and the deadline read through the asm of probe.h:
// the task may resume on another thread, and a thread-local address computed before the
// switch must not be reused. `measured_at` is the probe's clock read, `deadline` the one it
// yielded at.
__attribute__((noinline)) uint64_t clock_gap_resumed(uint64_t* site, uint64_t measured_at, uint64_t deadline,
                                                     uint64_t static_gap, uint64_t max_gap, uint64_t overshoot,
                                                     uint64_t max_cycles) {
  const uint64_t now = quanta_read_tsc();
  const uint64_t next_deadline = quanta_this_thread_deadline_tsc();
  site[QUANTA_GAP_AIM] =
      next_gap_aim(site[QUANTA_GAP_AIM], quanta_task_last_stop_tsc(), deadline, measured_at, max_cycles);
  const GapPlanInput in{measured_at,
                        resumed_gap_start_tsc(now, site[QUANTA_GAP_LEAD]),
                        gap_yield_at_tsc(next_deadline, site[QUANTA_GAP_AIM]),
                        static_gap,
                        max_gap,
                        overshoot,
                        max_cycles};
  return plan_clock_gap(site, in);
}

// The probe whose site's yield time has passed. Out of quanta_clock_gap(), so that the
// common gap (no yield) runs without saving the registers this path needs.
__attribute__((noinline, cold)) uint64_t clock_gap_yield(uint64_t* site, uint64_t now, uint64_t deadline,
                                                        uint64_t static_gap, uint64_t max_gap, uint64_t overshoot,
                                                        uint64_t max_cycles) {
  // The yield waits for the older work anyway, so waiting for it here costs nothing.
  site[QUANTA_GAP_LEAD] = next_gap_lead(site[QUANTA_GAP_LEAD], now, read_tsc_drained(), max_cycles);
  quanta_probe_slow();
  return clock_gap_resumed(site, now, deadline, static_gap, max_gap, overshoot, max_cycles);
}

// The thread's tick site after its yield: the task may now run on another thread, whose
// site and budget these are (read afresh, out of line). That site's last gaps measured
// other work, so it plans as a fresh site (START = 0: the static gap); the aim, how early
// before a deadline to yield, is the runtime's and is kept (clock_gap_resumed).
__attribute__((noinline)) void tick_gap_resumed(uint64_t measured_at, uint64_t deadline, uint64_t ahead,
                                                uint64_t static_gap, uint64_t max_gap, uint64_t max_cycles) {
  uint64_t* site = t_preempt_state.tick_site;
  site[QUANTA_GAP_START] = 0;
  const uint64_t gap = clock_gap_resumed(site, measured_at, deadline, static_gap, max_gap, 0, max_cycles);
  quanta_tick_budget = int64_t(gap) - int64_t(ahead);
}

__attribute__((noinline, cold)) void tick_gap_yield(uint64_t* site, uint64_t now, uint64_t deadline, uint64_t ahead,
                                                    uint64_t static_gap, uint64_t max_gap, uint64_t max_cycles) {
  site[QUANTA_GAP_LEAD] = next_gap_lead(site[QUANTA_GAP_LEAD], now, read_tsc_drained(), max_cycles);
  // Other tasks run on this thread until the resume: they find a whole static gap.
  quanta_tick_budget = int64_t(static_gap);
  quanta_probe_slow();
  tick_gap_resumed(now, deadline, ahead, static_gap, max_gap, max_cycles);
}

}  // namespace
}  // namespace quanta

extern "C" {

void quanta_probe_slow(void) { quanta::yield_or_defer(); }
void quanta_flag_probe_slow(void) {
  quanta::PreemptState& state = quanta::t_preempt_state;
  if (state.flag_checks_clock) {
    // quanta_deadline_tsc, not state.deadline_tsc: inside a preempt-disabled region it is
    // muted, and the enable checks the clock itself.
    if (quanta_read_tsc() >= quanta_deadline_tsc) quanta::yield_or_defer();
    return;
  }
  if (!quanta::flag_names_this_quantum(state)) return;
  // Deferred to the enable (pending): clear the flag, or a loop that reads it on every
  // iteration (the pass's polled loops) would call in here on each one until then.
  if (state.in_task && state.disable_depth > 0)
    __atomic_store_n(&quanta_preempt_flag[0], 0u, __ATOMIC_RELAXED);
  quanta::yield_or_defer();
}
void quanta_yield(void) { quanta::yield_or_defer(); }

uint64_t quanta_task_cpu_cycles(void) {
  quanta::PreemptState& state = quanta::t_preempt_state;
  // A call into the runtime is a safe point: a preemption signal that landed in code it
  // may not switch (this function, libc) is honoured here, so an uninstrumented handler
  // that polls its CPU time is still preempted.
  if (state.in_task && state.pending && state.disable_depth == 0) {
    state.pending = false;
    quanta::TaskRunner::current()->yield_running();
  }
  // Not `state`: the task may have resumed on another thread.
  return quanta::running_task_cpu_cycles();
}

uint64_t quanta_task_cpu_cycles_polled(void) {
  quanta::PreemptState& state = quanta::t_preempt_state;
  if (state.in_task && state.stall_log != nullptr) {
    // The handler's loop is short: a long gap since its last call (or since the quantum
    // began) was the host's.
    const uint64_t now = quanta_read_tsc();
    const uint64_t last = state.last_polled_tsc > state.quantum_start_tsc ? state.last_polled_tsc : state.quantum_start_tsc;
    state.stall_log->observe(last, now);
    state.last_polled_tsc = now;
  }
  return quanta_task_cpu_cycles();
}

uint64_t quanta_task_last_stop_tsc(void) {
  // Read afresh (out of line): the task may have resumed on another thread.
  quanta::TaskRunner* runner = quanta::TaskRunner::current();
  if (!quanta::t_preempt_state.in_task || runner == nullptr || runner->running() == nullptr) return 0;
  return runner->running()->last_stop_tsc;
}

void quanta_preempt_disable(void) {
  quanta::PreemptState& state = quanta::t_preempt_state;
  if (state.disable_depth++ == 0) quanta_deadline_tsc = UINT64_MAX;
}

void quanta_preempt_enable(void) {
  quanta::PreemptState& state = quanta::t_preempt_state;
  if (state.disable_depth > 0 && --state.disable_depth > 0) return;
  // The end of the outermost region, or an unbalanced enable (the lock was taken in code
  // the pass did not see: no region to end, and no underflow). Either way the pass counts
  // this call as a clock read (Placement.cpp), so it checks as a probe would.
  if (!state.in_task) return;
  // Probes were muted inside the region, so a quantum that ended there left no trace but
  // the clock (or the flag): check both, as a probe would have.
  if (state.pending || quanta_read_tsc() >= state.deadline_tsc || quanta::flag_names_this_quantum(state)) {
    state.pending = false;
    quanta::TaskRunner::current()->yield_running();
    return;
  }
  quanta_deadline_tsc = state.deadline_tsc;
}

// The clock half of an adaptive loop probe, once per gap: yield if the site's yield time
// has passed, then plan the next gap (clock_gap.h has the rules, in this order).
uint64_t quanta_clock_gap(uint64_t* site, uint64_t static_gap, uint64_t max_gap, uint64_t overshoot,
                          uint64_t max_cycles) {
  using namespace quanta;
  // A fresh site (START = 0): the pass stored nothing else at function entry.
  if (site[QUANTA_GAP_START] == 0) site[QUANTA_GAP_LEAD] = site[QUANTA_GAP_AIM] = 0;
  const uint64_t lead = site[QUANTA_GAP_LEAD];
  const uint64_t now = serial_gap_site(lead) ? read_tsc_drained() : quanta_read_tsc();
  const uint64_t deadline = quanta_this_thread_deadline_tsc();
  const uint64_t yield_at = gap_yield_at_tsc(deadline, site[QUANTA_GAP_AIM]);
  if (__builtin_expect(now < yield_at, 1))
    return plan_clock_gap(site, {now, now, yield_at, static_gap, max_gap, overshoot, max_cycles});
  return clock_gap_yield(site, now, deadline, static_gap, max_gap, overshoot, max_cycles);
}

// The thread's tick budget ran out: as quanta_clock_gap(), on the thread's own site, the
// overshoot read from the budget itself (what ran past the gap, the caller's `ahead` aside).
void quanta_tick_gap(uint64_t ahead, uint64_t static_gap, uint64_t max_gap, uint64_t max_cycles) {
  using namespace quanta;
  uint64_t* site = t_preempt_state.tick_site;
  const int64_t past = -(quanta_tick_budget + int64_t(ahead));
  const uint64_t now = serial_gap_site(site[QUANTA_GAP_LEAD]) ? read_tsc_drained() : quanta_read_tsc();
  const uint64_t deadline = quanta_this_thread_deadline_tsc();
  const uint64_t yield_at = gap_yield_at_tsc(deadline, site[QUANTA_GAP_AIM]);
  if (__builtin_expect(now < yield_at, 1)) {
    const GapPlanInput in{now, now, yield_at, static_gap, max_gap, past > 0 ? uint64_t(past) : 0, max_cycles};
    quanta_tick_budget = int64_t(plan_clock_gap(site, in)) - int64_t(ahead);
    return;
  }
  tick_gap_yield(site, now, deadline, ahead, static_gap, max_gap, max_cycles);
}

}  // extern "C"
