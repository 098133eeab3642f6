// io_uring receiving for the UDP front end (datagram_receiver.h). One multishot recvmsg is
// armed once; the kernel puts each datagram, with its sender and control data, into a
// buffer it takes from a provided-buffer ring and posts one completion for it. The ring is
// set up for cooperative task running: a datagram's arrival does not interrupt this thread;
// the kernel raises a flag in the shared ring instead, and receive() enters the kernel
// (io_uring_get_events) only when it sees that flag. So a receive that finds nothing reads
// two words of shared memory and makes no system call: what a dispatcher that polls all
// the time wants. Buffers handed out by one receive() go back to the kernel at the next.
#include <liburing.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/datagram_receiver.h"

namespace quanta {
namespace {

constexpr unsigned kCompletions = 4096;  // room for bursts between receives: an overflow ends the multishot
constexpr unsigned kBuffers = 1024;      // a power of two, as the buffer ring needs
constexpr std::size_t kControlBytes = 64;
constexpr unsigned short kGroup = 0;

void check(int rc, const char* what) {
  if (rc < 0) throw std::runtime_error(std::string("io_uring: ") + what + ": " + std::strerror(-rc));
}

class IoUringReceiver final : public DatagramReceiver {
 public:
  IoUringReceiver(int fd, uint32_t buffer_bytes, bool cooperative)
      : fd_(fd),
        // The kernel lays out each message in its buffer: its header, the sender, the
        // control data, then the datagram.
        slot_bytes_(sizeof(io_uring_recvmsg_out) + sizeof(sockaddr_storage) + kControlBytes + buffer_bytes),
        from_(kCompletions) {
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on);
    io_uring_params params{};
    params.flags = IORING_SETUP_CQSIZE;
    if (cooperative) params.flags |= IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
    params.cq_entries = kCompletions;
    check(io_uring_queue_init_params(8, &ring_, &params), "io_uring_queue_init_params");
    template_.msg_namelen = sizeof(sockaddr_storage);
    template_.msg_controllen = kControlBytes;
    try {
      setup_buffers();
      check(arm(), "arming the multishot recvmsg");
    } catch (...) {
      release();  // the destructor does not run for a constructor that throws
      throw;
    }
  }
  ~IoUringReceiver() override { release(); }

  // The ring's own descriptor polls readable when completions wait. With cooperative task
  // running a datagram's arrival queues the kernel's receive as task work for this thread,
  // which wakes it from epoll_wait (EINTR) and runs on its way back to user space.
  int wait_fd() const override { return ring_.ring_fd; }
  bool holds_arrivals() const override {
    const unsigned flags = __atomic_load_n(ring_.sq.kflags, __ATOMIC_ACQUIRE);
    return io_uring_cq_ready(&ring_) > 0 || (flags & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW)) != 0;
  }

  uint32_t receive(ReceivedDatagram* out, uint32_t max) override {
    give_back();
    const unsigned flags = __atomic_load_n(ring_.sq.kflags, __ATOMIC_ACQUIRE);
    if ((flags & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW)) != 0) io_uring_get_events(&ring_);
    unsigned head = 0;
    io_uring_cqe* cqe = nullptr;
    uint32_t seen = 0, n = 0;
    bool ended = false;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      if (n == max) break;
      ++seen;
      if ((cqe->flags & IORING_CQE_F_MORE) == 0) ended = true;
      if (cqe->res < 0 && cqe->res != -ENOBUFS) ++errors_;
      if ((cqe->flags & IORING_CQE_F_BUFFER) == 0) continue;
      const auto id = static_cast<unsigned short>(cqe->flags >> IORING_CQE_BUFFER_SHIFT);
      held_[held_count_++] = id;
      if (cqe->res < 0) continue;
      unsigned char* buffer = slot(id);
      io_uring_recvmsg_out* message = io_uring_recvmsg_validate(buffer, cqe->res, &template_);
      if (message == nullptr) continue;
      for (cmsghdr* c = io_uring_recvmsg_cmsg_firsthdr(message, &template_); c != nullptr;
           c = io_uring_recvmsg_cmsg_nexthdr(message, &template_, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
          std::memcpy(&kernel_drops_total_, CMSG_DATA(c), sizeof kernel_drops_total_);
        }
      }
      const auto namelen = std::min<socklen_t>(message->namelen, sizeof(sockaddr_storage));
      std::memcpy(&from_[n], io_uring_recvmsg_name(message), namelen);
      out[n] = {static_cast<const unsigned char*>(io_uring_recvmsg_payload(message, &template_)),
                io_uring_recvmsg_payload_length(message, cqe->res, &template_), (message->flags & MSG_TRUNC) != 0,
                &from_[n], namelen};
      ++n;
    }
    if (seen > 0) io_uring_cq_advance(&ring_, seen);
    // Out of buffers or of completion room, the receive ends and must be asked for again.
    if (ended) {
      ++rearms_;
      if (arm() < 0) ++errors_;
    }
    return n;
  }

 private:
  unsigned char* slot(unsigned short id) { return storage_.data() + std::size_t{id} * slot_bytes_; }

  // The buffers the last receive() handed out: their datagrams have been read.
  void give_back() {
    for (uint32_t i = 0; i < held_count_; ++i) {
      io_uring_buf_ring_add(buffer_ring_, slot(held_[i]), static_cast<unsigned>(slot_bytes_), held_[i],
                            io_uring_buf_ring_mask(kBuffers), static_cast<int>(i));
    }
    if (held_count_ > 0) io_uring_buf_ring_advance(buffer_ring_, static_cast<int>(held_count_));
    held_count_ = 0;
  }

  void release() {
    io_uring_queue_exit(&ring_);
    if (buffer_ring_ != nullptr) ::munmap(buffer_ring_, kBuffers * sizeof(io_uring_buf));
  }

  void setup_buffers() {
    const std::size_t ring_bytes = kBuffers * sizeof(io_uring_buf);
    void* memory = ::mmap(nullptr, ring_bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    if (memory == MAP_FAILED) throw std::runtime_error(std::string("io_uring: mmap: ") + std::strerror(errno));
    buffer_ring_ = static_cast<io_uring_buf_ring*>(memory);
    io_uring_buf_reg reg{};
    reg.ring_addr = reinterpret_cast<uint64_t>(memory);
    reg.ring_entries = kBuffers;
    reg.bgid = kGroup;
    check(io_uring_register_buf_ring(&ring_, &reg, 0), "io_uring_register_buf_ring");
    io_uring_buf_ring_init(buffer_ring_);
    storage_.resize(kBuffers * slot_bytes_);
    held_.resize(kBuffers);
    for (unsigned i = 0; i < kBuffers; ++i) {
      io_uring_buf_ring_add(buffer_ring_, slot(static_cast<unsigned short>(i)), static_cast<unsigned>(slot_bytes_),
                            static_cast<unsigned short>(i), io_uring_buf_ring_mask(kBuffers), static_cast<int>(i));
    }
    io_uring_buf_ring_advance(buffer_ring_, kBuffers);
  }

  // Asks for the multishot receive; a negative errno if it could not be submitted.
  int arm() {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) return -EBUSY;
    io_uring_prep_recvmsg_multishot(sqe, fd_, &template_, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = kGroup;
    const int rc = io_uring_submit(&ring_);
    return rc < 0 ? rc : 0;
  }

  int fd_;
  std::size_t slot_bytes_;
  io_uring ring_{};
  io_uring_buf_ring* buffer_ring_ = nullptr;
  std::vector<unsigned char> storage_;
  std::vector<unsigned short> held_;
  uint32_t held_count_ = 0;
  std::vector<sockaddr_storage> from_;
  msghdr template_{};
};

}  // namespace

std::unique_ptr<DatagramReceiver> make_io_uring_receiver(int fd, uint32_t buffer_bytes, bool cooperative) {
  return std::make_unique<IoUringReceiver>(fd, buffer_bytes, cooperative);
}

}  // namespace quanta
