// The socket-call receivers: recv per datagram, recvmmsg per batch, epoll then recvmmsg.
#include "udp_receivers.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace quanta::bench {
namespace {

// (a) One recv per datagram until the socket is empty: one syscall per datagram, and one
// more that finds nothing and ends the round.
class RecvReceiver final : public UdpReceiver {
 public:
  explicit RecvReceiver(int fd) : fd_(fd) {}
  uint32_t poll() override {
    uint32_t n = 0;
    while (n < kReceiveBatch) {
      const ssize_t len = ::recv(fd_, buffer_, sizeof buffer_, MSG_DONTWAIT);
      if (len < 0) break;
      checksum_ += buffer_[0];
      ++n;
    }
    return n;
  }

 private:
  int fd_;
  unsigned char buffer_[kMaxDatagramBytes];
};

// (b) What src/net/udp_front_end.cc does: one recvmmsg of up to a batch, with the sender's
// address and control data (the kernel's drop count) per datagram.
class RecvmmsgReceiver final : public UdpReceiver {
 public:
  explicit RecvmmsgReceiver(int fd) : fd_(fd) {}
  uint32_t poll() override {
    for (uint32_t i = 0; i < kReceiveBatch; ++i) {
      iov_[i] = {buffers_[i], kMaxDatagramBytes};
      messages_[i] = {};
      msghdr& h = messages_[i].msg_hdr;
      h.msg_name = &from_[i];
      h.msg_namelen = sizeof from_[i];
      h.msg_iov = &iov_[i];
      h.msg_iovlen = 1;
      h.msg_control = control_[i];
      h.msg_controllen = kControlBytes;
    }
    const int got = ::recvmmsg(fd_, messages_, kReceiveBatch, MSG_DONTWAIT, nullptr);
    if (got <= 0) return 0;
    for (int i = 0; i < got; ++i) {
      checksum_ += buffers_[i][0];
      note_drops(messages_[i].msg_hdr);
    }
    return static_cast<uint32_t>(got);
  }
  std::optional<uint32_t> kernel_drops() const override { return drops_; }

 private:
  static constexpr std::size_t kControlBytes = 64;
  void note_drops(msghdr& h) {
    for (cmsghdr* c = CMSG_FIRSTHDR(&h); c != nullptr; c = CMSG_NXTHDR(&h, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) std::memcpy(&drops_, CMSG_DATA(c), sizeof drops_);
    }
  }
  int fd_;
  unsigned char buffers_[kReceiveBatch][kMaxDatagramBytes];
  sockaddr_storage from_[kReceiveBatch];
  iovec iov_[kReceiveBatch];
  mmsghdr messages_[kReceiveBatch];
  alignas(cmsghdr) unsigned char control_[kReceiveBatch][kControlBytes];
  uint32_t drops_ = 0;
};

// (c) A front end with several sockets asks epoll which are ready (timeout 0), then
// recvmmsg's those: here one socket, so the cost of the extra epoll_wait shows alone.
class EpollReceiver final : public UdpReceiver {
 public:
  explicit EpollReceiver(int fd) : inner_(fd) {
    epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw std::runtime_error(std::string("epoll_create1: ") + std::strerror(errno));
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.fd = fd;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &e) != 0) {
      ::close(epoll_fd_);
      throw std::runtime_error(std::string("epoll_ctl: ") + std::strerror(errno));
    }
  }
  ~EpollReceiver() override { ::close(epoll_fd_); }
  uint32_t poll() override {
    epoll_event ready[4];
    if (::epoll_wait(epoll_fd_, ready, 4, 0) <= 0) return 0;
    const uint32_t n = inner_.poll();
    checksum_ = inner_.checksum();
    return n;
  }
  std::optional<uint32_t> kernel_drops() const override { return inner_.kernel_drops(); }

 private:
  RecvmmsgReceiver inner_;
  int epoll_fd_ = -1;
};

}  // namespace

const std::vector<std::string>& receive_method_names() {
  static const std::vector<std::string> names{"recv", "recvmmsg", "epoll_recvmmsg", "io_uring", "io_uring_coop"};
  return names;
}

std::unique_ptr<UdpReceiver> make_receiver(const std::string& method, int fd) {
  if (method == "recv") return std::make_unique<RecvReceiver>(fd);
  if (method == "recvmmsg") return std::make_unique<RecvmmsgReceiver>(fd);
  if (method == "epoll_recvmmsg") return std::make_unique<EpollReceiver>(fd);
  if (method == "io_uring") return make_io_uring_receiver(fd, false);
  if (method == "io_uring_coop") return make_io_uring_receiver(fd, true);
  return nullptr;
}

}  // namespace quanta::bench
