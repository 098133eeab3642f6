// How a runtime thread idles (--idle spin|yield|block).
#pragma once

#include <sched.h>

#include <cstdint>

#include "core/idle_mode.h"
#include "core/tsc.h"

namespace quanta {

// What a runtime thread does in its idle loop. The spell of spinning before a yield or a
// sleep matters: a thread that gives up its CPU at once also does so between the steps of
// work that is still coming (a reply that makes the next request of its connection
// framable), and each yield to a thread that spins costs a scheduler time slice,
// milliseconds; each sleep costs a wake-up, microseconds.
class IdleBackoff {
 public:
  // How long an idle spell spins before it yields or sleeps, by default (--idle-spin-us):
  // longer than the gaps between the steps of one request's way through the runtime, far
  // shorter than a time slice.
  static constexpr double kSpinBeforeYieldNs = 20000;

  explicit IdleBackoff(IdleMode mode, double spin_ns = kSpinBeforeYieldNs)
      : mode_(mode), spin_cycles_(mode == IdleMode::kSpin ? 0 : ns_to_cycles(spin_ns)) {}
  // Work was found: the next idle spell starts afresh.
  void busy() { idle_since_ = 0; }
  // One idle iteration at `now` (cycles). Returns true when the thread should now sleep
  // (block mode, past the spell of spinning): the caller sleeps if it can be woken, and
  // calls yield() if it cannot.
  bool pause(uint64_t now) {
    if (mode_ == IdleMode::kSpin) {
      cpu_relax();
      return false;
    }
    if (idle_since_ == 0) idle_since_ = now;
    if (now - idle_since_ < spin_cycles_) {
      cpu_relax();
      return false;
    }
    if (mode_ == IdleMode::kBlock) return true;
    sched_yield();
    return false;
  }
  static void yield() { sched_yield(); }

 private:
  IdleMode mode_;
  uint64_t spin_cycles_;
  uint64_t idle_since_ = 0;
};

}  // namespace quanta
