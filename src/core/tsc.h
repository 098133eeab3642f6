// Cycle-counter time. Inside the runtime every time is TSC cycles (uint64_t); this file
// converts at the edges (options in, reports out).
#pragma once

#include <sched.h>

#include <cstdint>

#include "quanta/probe.h"

namespace quanta {

inline uint64_t read_tsc() { return quanta_read_tsc(); }

// Ticks per nanosecond, measured once against CLOCK_MONOTONIC (about 20 ms the first time).
double tsc_per_ns();

inline uint64_t ns_to_cycles(double ns) { return static_cast<uint64_t>(ns * tsc_per_ns() + 0.5); }
inline double cycles_to_ns(uint64_t cycles) { return static_cast<double>(cycles) / tsc_per_ns(); }

inline void cpu_relax() { __builtin_ia32_pause(); }

// What a runtime thread does in its idle loop: spin (the default: the next request is
// seen within nanoseconds), or, with --idle yield, spin a while and then give the CPU to
// any other runnable thread (sched_yield), for machines where a client or another service
// shares the runtime's CPUs. The spell of spinning first matters: a thread that yields at
// once also yields between the steps of work that is still coming (a reply that makes the
// next request of its connection framable), and each yield to a thread that spins costs a
// scheduler time slice, milliseconds.
class IdleBackoff {
 public:
  // How long an idle spell spins before it yields: longer than the gaps between the steps
  // of one request's way through the runtime, far shorter than a time slice.
  static constexpr double kSpinBeforeYieldNs = 20000;

  explicit IdleBackoff(bool yield_cpu)
      : yield_cpu_(yield_cpu), spin_cycles_(yield_cpu ? ns_to_cycles(kSpinBeforeYieldNs) : 0) {}
  // Work was found: the next idle spell starts afresh.
  void busy() { idle_since_ = 0; }
  // One idle iteration at `now` (cycles).
  void pause(uint64_t now) {
    if (!yield_cpu_) {
      cpu_relax();
      return;
    }
    if (idle_since_ == 0) idle_since_ = now;
    if (now - idle_since_ < spin_cycles_) {
      cpu_relax();
    } else {
      sched_yield();
    }
  }

 private:
  bool yield_cpu_;
  uint64_t spin_cycles_;
  uint64_t idle_since_ = 0;
};

}  // namespace quanta
