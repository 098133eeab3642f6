// The receivers the bench times: recv per datagram, and the UDP front end's own ways
// (recvmmsg per batch, io_uring's multishot receive), alone or behind epoll.
#include "udp_receivers.h"

#include <utility>

#include "net/datagram_receiver.h"

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

// (b) and (d): the front end's own receivers (src/net/datagram_receiver.h): recvmmsg of a
// batch with sender and control data, or io_uring's multishot receive.
class FrontEndReceiver final : public UdpReceiver {
 public:
  explicit FrontEndReceiver(std::unique_ptr<DatagramReceiver> inner) : inner_(std::move(inner)) {}
  uint32_t poll() override {
    const uint32_t n = inner_->receive(received_, kReceiveBatch);
    for (uint32_t i = 0; i < n; ++i) checksum_ += received_[i].len > 0 ? received_[i].bytes[0] : 0;
    return n;
  }
  std::optional<uint32_t> kernel_drops() const override { return inner_->kernel_drops_total(); }
  uint64_t rearms() const override { return inner_->rearms(); }

 private:
  std::unique_ptr<DatagramReceiver> inner_;
  ReceivedDatagram received_[kReceiveBatch];
};

std::unique_ptr<UdpReceiver> front_end_recvmmsg(int fd) {
  return std::make_unique<FrontEndReceiver>(make_recvmmsg_receiver(fd, kMaxDatagramBytes, kReceiveBatch));
}

// (c) A front end with several sockets asks epoll which are ready (timeout 0), then
// recvmmsg's those: here one socket, so the cost of the extra epoll_wait shows alone.
class EpollReceiver final : public UdpReceiver {
 public:
  explicit EpollReceiver(int fd) : inner_(front_end_recvmmsg(fd)) {
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
    const uint32_t n = inner_->poll();
    checksum_ = inner_->checksum();
    return n;
  }
  std::optional<uint32_t> kernel_drops() const override { return inner_->kernel_drops(); }

 private:
  std::unique_ptr<UdpReceiver> inner_;
  int epoll_fd_ = -1;
};

}  // namespace

const std::vector<std::string>& receive_method_names() {
  static const std::vector<std::string> names{"recv", "recvmmsg", "epoll_recvmmsg", "io_uring", "io_uring_coop"};
  return names;
}

std::unique_ptr<UdpReceiver> make_receiver(const std::string& method, int fd) {
  if (method == "recv") return std::make_unique<RecvReceiver>(fd);
  if (method == "recvmmsg") return front_end_recvmmsg(fd);
  if (method == "epoll_recvmmsg") return std::make_unique<EpollReceiver>(fd);
  if (method == "io_uring" || method == "io_uring_coop") {
    return std::make_unique<FrontEndReceiver>(make_io_uring_receiver(fd, kMaxDatagramBytes, method == "io_uring_coop"));
  }
  return nullptr;
}

}  // namespace quanta::bench
