// How a runtime thread idles (--idle spin|yield).
#pragma once

#include <sched.h>

#include <cstdint>

#include "core/tsc.h"

namespace quanta {

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
