// Signal-driven preemption (LibPreemptible's fallback path): a monitor sends the worker
// thread SIGURG once its quantum has run too long; the handler switches away from the
// task right there if that is safe, else leaves a pending preemption that the task's
// next probe or preempt-enable honours.
//
// Safe means: a task is running, preemption is enabled, and the interrupted instruction
// lies in code registered as signal-safe (the `quanta_text` section the compiler pass
// and the synthetic app put their code in, or an object the app registered). Code in
// other objects (libc, the loader) may hold locks or be mid-update, so it is never left
// from a signal. Returning from the handler later restores every register (sigreturn).
#pragma once

#include <signal.h>

#include <cstdint>

namespace quanta {

// Installs the SIGURG handler (once per process). Throws std::runtime_error on failure.
void install_preempt_signal_handler();

// SIGURG: ignored by default (a stray one harms nothing), unused by libc; the kernel sends
// it only for TCP urgent data, which the handler passes on to the application's handler.
constexpr int kPreemptSignal = SIGURG;

// Per-thread signal counters, read by the worker when it stops.
struct SignalCounters {
  uint64_t received = 0;   // handler runs
  uint64_t switched = 0;   // preempted from inside the handler
  uint64_t deferred = 0;   // left pending (unsafe code or preemption disabled)
  uint64_t stale = 0;      // arrived for a quantum already over
  // Where the first deferred signals landed (the interrupted instruction): the run names
  // the code objects that preemption signals could not leave (runtime/code_address.h).
  static constexpr uint32_t kDeferredSitesKept = 32;
  uintptr_t deferred_sites[kDeferredSitesKept] = {};
  uint32_t deferred_sites_kept = 0;
};
SignalCounters& signal_counters();

// Asks thread `tid` of this process where it is: the handler stores the interrupted
// instruction's address in the thread's PreemptState::pc_sample (if it has one) and
// returns; nothing else happens to the thread. The sample is a queued signal carrying
// kPcSampleRequest, so the handler tells it apart from a preemption. Returns false if
// the signal could not be sent.
bool request_pc_sample(int pid, int tid);
constexpr int kPcSampleRequest = 0x5157;  // "QW": the watchdog's value in si_value

// Whether `pc` is in code registered as safe to leave from a signal handler.
bool is_signal_safe_code(uintptr_t pc);

}  // namespace quanta
