// (d) io_uring: one multishot recvmsg, armed once, takes every datagram that arrives into a
// buffer the kernel picks from a provided-buffer ring and posts one completion each. The
// receiving loop only reads the completion ring in shared memory: a poll that finds
// nothing is a few loads, no syscall. The kernel's work to copy a datagram is still done
// on this thread, but outside poll():
// - default: the socket's wake-up queues task work and interrupts this thread (an IPI
//   from the sender's CPU) to run it, so completions appear while the loop spins;
// - cooperative (IORING_SETUP_COOP_TASKRUN | TASKRUN_FLAG): no interrupt; the kernel
//   sets a flag in the ring, and poll() enters the kernel (io_uring_get_events) only when
//   it sees that flag. One syscall then completes everything that waited.
// The bench's per-datagram CPU figure (loop time less empty polls) counts that outside
// work; the time inside poll() alone would flatter io_uring.
#include <liburing.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "udp_receivers.h"

namespace quanta::bench {
namespace {

class IoUringReceiver final : public UdpReceiver {
 public:
  IoUringReceiver(int fd, bool cooperative) : fd_(fd) {
    io_uring_params params{};
    // One completion per datagram: room for many more than a batch, so that a slow
    // reader does not overflow the ring (which ends the multishot receive).
    params.flags = IORING_SETUP_CQSIZE;
    params.cq_entries = kCompletions;
    if (cooperative) params.flags |= IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
    check(io_uring_queue_init_params(8, &ring_, &params), "io_uring_queue_init_params");
    // The template the kernel lays out each received message by: the name and control
    // data first, then the payload, in one provided buffer.
    template_.msg_namelen = sizeof(sockaddr_storage);
    template_.msg_controllen = kControlBytes;
    try {
      setup_buffers();
      arm();
    } catch (...) {
      release();  // the destructor does not run for a constructor that throws
      throw;
    }
  }
  ~IoUringReceiver() override { release(); }

  uint32_t poll() override {
    // Work the kernel holds back (cooperative task work, completions that did not fit):
    // only then a syscall.
    const unsigned flags = __atomic_load_n(ring_.sq.kflags, __ATOMIC_ACQUIRE);
    if ((flags & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW)) != 0) io_uring_get_events(&ring_);
    unsigned head = 0;
    io_uring_cqe* cqe = nullptr;
    uint32_t seen = 0, received = 0;
    int given_back = 0;
    bool ended = false;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      ++seen;
      if ((cqe->flags & IORING_CQE_F_MORE) == 0) ended = true;
      if (cqe->res < 0 && cqe->res != -ENOBUFS) {
        throw std::runtime_error(std::string("io_uring multishot recvmsg: ") + std::strerror(-cqe->res));
      }
      if ((cqe->flags & IORING_CQE_F_BUFFER) != 0) {
        const auto id = static_cast<unsigned short>(cqe->flags >> IORING_CQE_BUFFER_SHIFT);
        unsigned char* buffer = buffers_ + static_cast<std::size_t>(id) * kBufferBytes;
        if (cqe->res >= 0) received += take(buffer, cqe->res);
        io_uring_buf_ring_add(buffer_ring_, buffer, kBufferBytes, id, io_uring_buf_ring_mask(kBuffers), given_back++);
      }
      if (seen == kReceiveBatch) break;
    }
    if (given_back > 0) io_uring_buf_ring_advance(buffer_ring_, given_back);
    if (seen > 0) io_uring_cq_advance(&ring_, seen);
    // Out of buffers or completion room: the receive ended and must be asked for again.
    if (ended) {
      ++rearms_;
      arm();
    }
    return received;
  }
  std::optional<uint32_t> kernel_drops() const override { return drops_; }
  uint64_t rearms() const override { return rearms_; }

 private:
  static constexpr unsigned kCompletions = 4096;
  static constexpr unsigned kBuffers = 1024;  // a power of two, as the buffer ring needs
  static constexpr std::size_t kControlBytes = 64;
  // The kernel's header, the name, the control data, then the datagram.
  static constexpr std::size_t kBufferBytes = 512;
  static_assert(sizeof(io_uring_recvmsg_out) + sizeof(sockaddr_storage) + kControlBytes + kMaxDatagramBytes <=
                kBufferBytes);
  static constexpr int kGroup = 0;

  static void check(int rc, const char* what) {
    if (rc < 0) throw std::runtime_error(std::string(what) + ": " + std::strerror(-rc));
  }

  void release() {
    io_uring_queue_exit(&ring_);
    if (buffer_ring_ != nullptr) ::munmap(buffer_ring_, kBuffers * sizeof(io_uring_buf));
  }

  void setup_buffers() {
    const std::size_t ring_bytes = kBuffers * sizeof(io_uring_buf);
    void* memory = ::mmap(nullptr, ring_bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    if (memory == MAP_FAILED) throw std::runtime_error(std::string("mmap: ") + std::strerror(errno));
    buffer_ring_ = static_cast<io_uring_buf_ring*>(memory);
    io_uring_buf_reg reg{};
    reg.ring_addr = reinterpret_cast<uint64_t>(memory);
    reg.ring_entries = kBuffers;
    reg.bgid = kGroup;
    check(io_uring_register_buf_ring(&ring_, &reg, 0), "io_uring_register_buf_ring (provided buffers)");
    io_uring_buf_ring_init(buffer_ring_);
    storage_.resize(kBuffers * kBufferBytes);
    buffers_ = storage_.data();
    for (unsigned i = 0; i < kBuffers; ++i) {
      io_uring_buf_ring_add(buffer_ring_, buffers_ + i * kBufferBytes, kBufferBytes, static_cast<unsigned short>(i),
                            io_uring_buf_ring_mask(kBuffers), static_cast<int>(i));
    }
    io_uring_buf_ring_advance(buffer_ring_, kBuffers);
  }

  void arm() {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) throw std::runtime_error("io_uring: no free submission entry");
    io_uring_prep_recvmsg_multishot(sqe, fd_, &template_, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = kGroup;
    check(io_uring_submit(&ring_), "io_uring_submit (multishot recvmsg)");
  }

  // Reads one received message out of its buffer; 1 if it holds a datagram.
  uint32_t take(unsigned char* buffer, int length) {
    io_uring_recvmsg_out* out = io_uring_recvmsg_validate(buffer, length, &template_);
    if (out == nullptr) return 0;
    msghdr& h = template_;
    for (cmsghdr* c = io_uring_recvmsg_cmsg_firsthdr(out, &h); c != nullptr;
         c = io_uring_recvmsg_cmsg_nexthdr(out, &h, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) std::memcpy(&drops_, CMSG_DATA(c), sizeof drops_);
    }
    if (io_uring_recvmsg_payload_length(out, length, &h) > 0) {
      checksum_ += *static_cast<unsigned char*>(io_uring_recvmsg_payload(out, &h));
    }
    return 1;
  }

  int fd_;
  io_uring ring_{};
  io_uring_buf_ring* buffer_ring_ = nullptr;
  std::vector<unsigned char> storage_;
  unsigned char* buffers_ = nullptr;
  msghdr template_{};
  uint32_t drops_ = 0;
  uint64_t rearms_ = 0;
};

}  // namespace

std::unique_ptr<UdpReceiver> make_io_uring_receiver(int fd, bool cooperative) {
  return std::make_unique<IoUringReceiver>(fd, cooperative);
}

}  // namespace quanta::bench
