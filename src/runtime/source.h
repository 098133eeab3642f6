// Where requests come from. A source makes Requests (from its own RequestPool) and the
// dispatcher polls it; each request names the Sink that takes its completion, usually
// the source itself. The in-process generator (io/generator_source.h), the public API's
// submissions (runtime/api_source.h) and the network front end are all sources: the
// dispatcher treats them alike.
#pragma once

#include <cstdint>

#include "runtime/request.h"

namespace quanta {

// What the dispatcher may sleep on with --idle block, gathered from its sources: descriptors
// that turn readable when a source has work, and the time the next scheduled request is due.
struct IdleWait {
  static constexpr uint64_t kNever = UINT64_MAX;
  static constexpr int kMaxFds = 16;
  int fds[kMaxFds];
  int fd_count = 0;
  uint64_t due_tsc = kNever;

  // False when there is no room left (the dispatcher then does not sleep).
  bool add_fd(int fd) {
    if (fd_count == kMaxFds) return false;
    fds[fd_count++] = fd;
    return true;
  }
};

class Source {
 public:
  virtual ~Source() = default;
  // Called on the dispatcher's thread: puts up to `max` requests that are due at `now_tsc`
  // into `out` and returns how many. Never blocks.
  virtual uint32_t poll(uint64_t now_tsc, Request** out, uint32_t max) = 0;
  // True once the source will never produce again (its schedule is over; it was closed
  // and has nothing left). The dispatcher stops when every source is exhausted and every
  // request has finished.
  virtual bool exhausted() const = 0;
  // The runtime is stopping: take no new requests (what was taken is still handed over).
  virtual void close() = 0;

  // --idle block, on the dispatcher's thread, after a poll that found nothing. Returns
  // false when the dispatcher must not sleep now: the source has work that needs no new
  // input (completions to send, bytes already read), or it has no way to wake a sleeper
  // (the default). Otherwise it adds to `wait` what will wake the dispatcher (arming its
  // doorbells before its last check for work) and end_idle_wait() follows the sleep.
  virtual bool prepare_idle_wait(IdleWait&) { return false; }
  virtual void end_idle_wait() {}
};

}  // namespace quanta
