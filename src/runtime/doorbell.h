// How another thread wakes the dispatcher from its --idle block sleep: an eventfd in the
// set the dispatcher sleeps on. The dispatcher arms the bell before its last check for work;
// a producer publishes its work, then rings, and writes the eventfd only while the bell is
// armed, so that a busy dispatcher costs a producer a fence and no system call. The two
// fences pair as in core/parking_spot.h: a ring is never lost.
#pragma once

#include <atomic>

namespace quanta {

class Doorbell {
 public:
  // Throws std::runtime_error when the eventfd cannot be made.
  Doorbell();
  ~Doorbell();
  Doorbell(const Doorbell&) = delete;
  Doorbell& operator=(const Doorbell&) = delete;

  int fd() const { return fd_; }
  // The dispatcher, before its last check for work.
  void arm() { armed_.store(true, std::memory_order_seq_cst); }
  // The dispatcher, after its sleep: reads the eventfd back to zero if anyone rang (a
  // ring takes the arming back), so a sleep nobody rang for costs no system call here.
  void disarm();
  // A producer, after publishing work the dispatcher must see.
  void ring() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (armed_.load(std::memory_order_relaxed) && armed_.exchange(false, std::memory_order_acq_rel)) write_event();
  }
  // Wakes the dispatcher whether or not it sleeps (the runtime is stopping).
  void ring_always() {
    armed_.store(false, std::memory_order_seq_cst);
    write_event();
  }

 private:
  void write_event();

  int fd_ = -1;
  std::atomic<bool> armed_{false};
};

}  // namespace quanta
