// Per-thread preemption state behind the probe ABI (include/quanta/probe.h): the deadline
// the clock probes compare against, the preempt-disable nesting depth, and whether a
// preemption arrived while disabled.
#pragma once

#include <atomic>
#include <cstdint>

#include "quanta/clock_gap.h"
#include "quanta/probe.h"
#include "stats/stall_log.h"

namespace quanta {

struct PreemptState {
  uint32_t disable_depth = 0;
  bool pending = false;      // a probe fired while disabled; honour it at the last enable
  bool in_task = false;      // a task is running on this thread right now
  uint64_t deadline_tsc = UINT64_MAX;  // the quantum's end, kept while probes are muted
  uint64_t quantum_start_tsc = 0;
  uint64_t attained_before_cycles = 0; // the running task's service before this quantum
  uint32_t flag_seq = 0;               // the quantum a flag must name to end (flag mechanism)
  // A thread nobody writes a flag for (the dispatcher running requests itself under
  // --preempt flag): its flag word always reads set, and the flag's slow path compares
  // the clock with the deadline instead (check_clock_at_flag_probes).
  bool flag_checks_clock = false;
  uint64_t signal_deadline_tsc = UINT64_MAX;  // a preemption signal before this is stale
  bool signal_switching = false;       // the signal handler is switching away already
  StallLog* stall_log = nullptr;       // the worker's: quanta_task_cpu_cycles_polled() writes it
  uint64_t last_polled_tsc = 0;        // that function's last clock read
  // The worker's: where the preemption signal handler notes the interrupted instruction
  // when asked for a sample (the watchdog) or when it has to defer (code without probes).
  std::atomic<uintptr_t>* pc_sample = nullptr;
  std::atomic<uint64_t>* pc_samples = nullptr;  // ... and counts them
  // The adaptive site of the thread's tick budget (quanta_tick_gap()): every tick and every
  // loop on that budget refills it from here. Zero: fresh (START = 0).
  uint64_t tick_site[QUANTA_GAP_WORDS] = {};

  void begin_quantum(uint64_t deadline, uint64_t start_tsc, uint64_t attained_cycles) {
    in_task = true;
    quantum_start_tsc = start_tsc;
    attained_before_cycles = attained_cycles;
    pending = false;
    deadline_tsc = deadline;
    quanta_deadline_tsc = disable_depth ? UINT64_MAX : deadline;
    signal_switching = false;
  }
  void end_quantum() {
    in_task = false;
    quanta_deadline_tsc = UINT64_MAX;
  }
};

// For a thread that runs tasks with a clock deadline but has no monitor writing its flag
// (the dispatcher's own requests under --preempt flag): flag-probed code that a clock
// twin reaches through a pointer still stops at the deadline, because every flag probe
// on this thread takes the slow path, which reads the clock. Slower per probe than a
// flag read (a call and rdtsc), but only on this thread and only in code without a twin.
void check_clock_at_flag_probes();

// The calling thread's flag word (word 0 of its quanta_preempt_flag line), cleared: the
// address a monitor writes to end this thread's quanta. It lives as long as the thread, so
// whoever writes it must stop before the thread exits (the runtime joins its dispatcher,
// the monitor, before it stops the workers).
uint32_t* this_thread_flag_word();

// Defined in probe_abi.cc. constinit: no lazy-initialization wrapper, so every access is
// one %fs-relative address computation on the yield path; initial-exec (QUANTA_TLS), so
// that stays true in libquanta.so, where the default model calls __tls_get_addr.
extern constinit thread_local PreemptState t_preempt_state QUANTA_TLS;

inline PreemptState& preempt_state() { return t_preempt_state; }

}  // namespace quanta
