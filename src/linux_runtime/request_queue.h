// The pool's one shared queue: a mutex, a condition variable and a deque. An idle pool
// thread sleeps in the kernel (futex) until the dispatcher pushes; blocking and being
// woken by the kernel is exactly what this baseline measures, so nothing here spins.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>

#include "runtime/request.h"

namespace quanta {

class RequestQueue {
 public:
  void push(Request* request) {
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
};

}  // namespace quanta
