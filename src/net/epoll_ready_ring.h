// `quanta serve --tcp-poll io_uring`: says whether the TCP front end's epoll set may have
// become ready since the front end last asked epoll, without a system call when it has not.
//
// A small io_uring of its own holds one multishot IORING_OP_POLL_ADD (POLLIN) on the epoll
// descriptor. The epoll instance wakes everything polling it each time one of its sockets
// reports an event, so the poll is woken too; the ring is set up for cooperative task
// running (as the UDP receiver's, datagram_receiver_io_uring.cc), so the wake does not
// interrupt the dispatcher: the kernel raises IORING_SQ_TASKRUN in the ring's shared flags
// and queues the poll's check as task work, which runs the next time the dispatcher's
// thread leaves the kernel and posts a completion if the set is ready then. Either sign
// (the flag, or a completion) means "ask epoll"; neither means nothing happened since the
// last look, and asking costs two loads of shared memory.
//
// The task work of a request runs on the thread that submitted it, so the poll is armed
// (and re-armed) by the first take_signal(), on the thread that polls (the dispatcher), and
// never from the constructor's thread.
#pragma once

#include <liburing.h>

#include <cstdint>

#include "net/io_uring_unavailable.h"

namespace quanta {

class EpollReadyRing {
 public:
  // Creates the ring (IoUringUnavailable if it cannot be); arms nothing yet.
  explicit EpollReadyRing(int epoll_fd);
  ~EpollReadyRing();
  EpollReadyRing(const EpollReadyRing&) = delete;
  EpollReadyRing& operator=(const EpollReadyRing&) = delete;

  // On the polling thread. True when the caller must call epoll_wait: the set signalled
  // readiness since the last call, or the poll is not armed (first call, or the kernel
  // ended the multishot: it is armed again here, and whatever happened meanwhile is
  // looked for). Consumes the completions; enters the kernel only to flush an overflowed
  // completion queue or to arm.
  bool take_signal();
  // Whether take_signal() would return true now (shared memory only): --idle block does
  // not sleep on a set that may hold events nobody has taken.
  bool signalled() const;

  uint64_t arms() const { return arms_; }      // the first one included
  uint64_t errors() const { return errors_; }  // failed arms and completions with an error

 private:
  unsigned kernel_flags() const { return __atomic_load_n(ring_.sq.kflags, __ATOMIC_ACQUIRE); }
  // Submits the multishot poll; a negative errno if it could not be.
  int arm();

  int epoll_fd_;
  io_uring ring_{};
  bool armed_ = false;
  bool prepared_ = false;  // a poll is in the submission queue, not yet submitted
  uint64_t arms_ = 0;
  uint64_t errors_ = 0;
};

}  // namespace quanta
