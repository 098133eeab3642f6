// Where a runtime thread sleeps until another thread hands it work (--idle block): a futex
// word. The sleeper announces itself, checks once more for work, and only then sleeps; a
// producer publishes its work, then looks for a sleeper. Both sides put a full fence between
// their store and their load (Dekker's pattern), so either the sleeper sees the work or
// the producer sees the sleeper: a wake-up is never lost.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace quanta {

class ParkingSpot {
 public:
  // The sleeper, before its last check for work (a full fence: x86's xchg).
  void announce() { parked_.store(1, std::memory_order_seq_cst); }
  // The sleeper, when that check found work after all.
  void withdraw() { parked_.store(0, std::memory_order_relaxed); }
  // The sleeper, when it found none: returns once a producer woke it, or at once if one
  // already did, or on a signal. Either way the thread is no longer parked and looks for
  // work again (announcing itself again before it sleeps again).
  void sleep() {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&parked_), FUTEX_WAIT_PRIVATE, 1u, nullptr, nullptr, 0);
    parked_.store(0, std::memory_order_relaxed);
  }
  // A producer, after publishing work for this sleeper. Costs a fence, and a system call
  // only when the sleeper sleeps.
  void wake() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (parked_.load(std::memory_order_relaxed) != 0 && parked_.exchange(0, std::memory_order_acq_rel) != 0) {
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(&parked_), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    }
  }

 private:
  std::atomic<uint32_t> parked_{0};
};

}  // namespace quanta
