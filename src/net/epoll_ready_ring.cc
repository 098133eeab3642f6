#include "net/epoll_ready_ring.h"

#include <poll.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace quanta {
namespace {

constexpr unsigned kSubmissions = 4;   // one poll is all it ever holds
constexpr unsigned kCompletions = 64;  // a completion per wake that found the set ready; the front end
                                       // takes them at every poll, and an overflow only ends the
                                       // multishot (re-armed at the next call)

}  // namespace

EpollReadyRing::EpollReadyRing(int epoll_fd) : epoll_fd_(epoll_fd) {
  io_uring_params params{};
  params.flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
  params.cq_entries = kCompletions;
  const int rc = io_uring_queue_init_params(kSubmissions, &ring_, &params);
  if (rc < 0) throw IoUringUnavailable(std::string("io_uring_queue_init_params: ") + std::strerror(-rc));
}

EpollReadyRing::~EpollReadyRing() { io_uring_queue_exit(&ring_); }

bool EpollReadyRing::take_signal() {
  bool signal = false;
  const unsigned flags = kernel_flags();
  // A socket of the set had an event and the kernel queued the poll's check for this
  // thread: ask epoll now. The check runs when the caller's epoll_wait returns to user
  // space; if the set is still (or again) ready then, it leaves a completion, and the
  // next call asks again.
  if ((flags & IORING_SQ_TASKRUN) != 0) signal = true;
  if ((flags & IORING_SQ_CQ_OVERFLOW) != 0) {
    // Completions that found the queue full wait in the kernel: the one that ended the
    // multishot may be among them.
    io_uring_get_events(&ring_);
    signal = true;
  }
  unsigned head = 0;
  unsigned seen = 0;
  io_uring_cqe* cqe = nullptr;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    ++seen;
    if (cqe->res < 0) ++errors_;
    if ((cqe->flags & IORING_CQE_F_MORE) == 0) armed_ = false;  // the kernel ended the multishot
  }
  if (seen > 0) {
    io_uring_cq_advance(&ring_, seen);
    signal = true;
  }
  if (!armed_) {
    // Unarmed, nothing would say when the set turns ready: look now, and every call until
    // the poll is armed again. A poll armed on a ready set completes at once.
    signal = true;
    if (arm() == 0) {
      armed_ = true;
      ++arms_;
    } else {
      ++errors_;
    }
  }
  return signal;
}

bool EpollReadyRing::signalled() const {
  return !armed_ || io_uring_cq_ready(&ring_) > 0 ||
         (kernel_flags() & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW)) != 0;
}

int EpollReadyRing::arm() {
  // A poll prepared by a call whose submission failed is still in the submission queue:
  // submit that one rather than a second.
  if (!prepared_) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) return -EBUSY;
    io_uring_prep_poll_multishot(sqe, epoll_fd_, POLLIN);
    prepared_ = true;
  }
  const int rc = io_uring_submit(&ring_);
  if (rc < 0) return rc;
  prepared_ = false;
  return 0;
}

}  // namespace quanta
