// The dispatcher's sleep with --idle block: when none of its sources has anything to do,
// it sleeps in epoll_wait on what they name (their sockets, their doorbells) and on the
// runtime's own doorbell (rung at stop), until the next scheduled arrival at the latest.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/doorbell.h"
#include "runtime/source.h"

namespace quanta {

class DispatcherSleep {
 public:
  // What try_sleep did.
  enum class Outcome {
    kSlept,   // it slept (and is awake again: poll the sources)
    kSoon,    // a scheduled arrival is too close to sleep for: keep spinning
    kCannot,  // a source has work that needs no new input, or cannot wake a sleeper
  };

  // Throws std::runtime_error when epoll cannot be set up. `wake` is the runtime's bell.
  DispatcherSleep(Doorbell& wake, std::size_t source_count);
  ~DispatcherSleep();
  DispatcherSleep(const DispatcherSleep&) = delete;
  DispatcherSleep& operator=(const DispatcherSleep&) = delete;

  // Called on the dispatcher's thread once nothing is in flight that needs it (no request
  // in a worker under a monitor mechanism, no completion it must send).
  Outcome try_sleep(std::span<Source* const> sources);
  // try_sleep, and what to do instead when it does not sleep: spin once when an arrival is
  // close, else yield the CPU. Returns whether it slept (the time asleep is no host stall).
  bool sleep_or_yield(std::span<Source* const> sources);

  uint64_t sleeps() const { return sleeps_; }

 private:
  // How long before a scheduled arrival the dispatcher wakes (timer slack and wake-up
  // latency), and the shortest sleep worth a system call.
  static constexpr uint64_t kWakeEarlyNs = 50000;

  void watch(int fd);

  Doorbell& wake_;
  int epoll_fd_ = -1;
  std::vector<int> watched_;
  std::vector<Source*> prepared_;
  uint64_t sleeps_ = 0;
};

}  // namespace quanta
