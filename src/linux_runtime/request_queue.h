// The pool's one shared queue: a mutex, a condition variable and a deque. An idle pool
// thread sleeps in the kernel (futex) until the dispatcher pushes; blocking and being
// woken by the kernel is exactly what this baseline measures, so nothing here spins.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>

#include "runtime/request.h"

namespace quanta {

class RequestQueue {
 public:
  // One pushing thread (the replay loop).
  void push(Request* request) {
    // The queue is every pool thread's: a request that finds none in the system begins
    // the busy period (for judging whether a host stall touched a request).
    if (in_system_.fetch_add(1, std::memory_order_relaxed) == 0) busy_since_tsc_ = request->arrival_tsc;
    request->busy_since_tsc = busy_since_tsc_;
    {
      std::lock_guard lock(mutex_);
      items_.push_back(request);
    }
    // glibc's signal is a few atomics when nobody waits: the syscall is paid only when a
    // thread sleeps.
    ready_.notify_one();
  }

  // Blocks until a request arrives (true) or the queue is closed and empty (false).
  bool pop(Request*& out) {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return !items_.empty() || closed_; });
    if (items_.empty()) return false;
    out = items_.front();
    items_.pop_front();
    return true;
  }

  // A popped request finished.
  void done() { in_system_.fetch_sub(1, std::memory_order_relaxed); }

  // No more pushes: threads drain what is left, then pop() returns false.
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Request*> items_;
  bool closed_ = false;
  std::atomic<uint64_t> in_system_{0};  // pushed and not yet done
  uint64_t busy_since_tsc_ = 0;         // the pushing thread's only
};

}  // namespace quanta
