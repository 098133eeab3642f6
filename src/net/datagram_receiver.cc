#include "net/datagram_receiver.h"
#include "net/plain_syscalls.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace quanta {
namespace {

// Room for each message's control data: the kernel's drop count (SO_RXQ_OVFL).
constexpr std::size_t kControlBytes = 64;

class RecvmmsgReceiver final : public DatagramReceiver {
 public:
  RecvmmsgReceiver(int fd, uint32_t buffer_bytes, uint32_t batch)
      : fd_(fd), buffer_bytes_(buffer_bytes), buffers_(std::size_t{buffer_bytes} * batch), from_(batch), iov_(batch),
        messages_(batch), control_(kControlBytes * batch) {
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on);
  }

  // Queued datagrams stay in the socket until received: its readability says it all.
  int wait_fd() const override { return fd_; }
  bool holds_arrivals() const override { return false; }

  uint32_t receive(ReceivedDatagram* out, uint32_t max) override {
    const auto want = static_cast<uint32_t>(std::min<std::size_t>(max, messages_.size()));
    for (uint32_t i = 0; i < want; ++i) {
      iov_[i] = {buffers_.data() + std::size_t{i} * buffer_bytes_, buffer_bytes_};
      messages_[i] = {};
      messages_[i].msg_hdr.msg_name = &from_[i];
      messages_[i].msg_hdr.msg_namelen = sizeof(sockaddr_storage);
      messages_[i].msg_hdr.msg_iov = &iov_[i];
      messages_[i].msg_hdr.msg_iovlen = 1;
      messages_[i].msg_hdr.msg_control = control_.data() + i * kControlBytes;
      messages_[i].msg_hdr.msg_controllen = kControlBytes;
    }
    const int got = plain::recvmmsg(fd_, messages_.data(), want, MSG_DONTWAIT);
    if (got < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) ++errors_;
      return 0;
    }
    for (int i = 0; i < got; ++i) {
      msghdr& h = messages_[i].msg_hdr;
      for (cmsghdr* c = CMSG_FIRSTHDR(&h); c != nullptr; c = CMSG_NXTHDR(&h, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
          std::memcpy(&kernel_drops_total_, CMSG_DATA(c), sizeof kernel_drops_total_);
        }
      }
      out[i] = {buffers_.data() + std::size_t(i) * buffer_bytes_, messages_[i].msg_len,
                (h.msg_flags & MSG_TRUNC) != 0, &from_[i], h.msg_namelen};
    }
    return static_cast<uint32_t>(got);
  }

 private:
  int fd_;
  uint32_t buffer_bytes_;
  std::vector<unsigned char> buffers_;
  std::vector<sockaddr_storage> from_;
  std::vector<iovec> iov_;
  std::vector<mmsghdr> messages_;
  std::vector<unsigned char> control_;
};

}  // namespace

std::unique_ptr<DatagramReceiver> make_recvmmsg_receiver(int fd, uint32_t buffer_bytes, uint32_t batch) {
  return std::make_unique<RecvmmsgReceiver>(fd, buffer_bytes, batch);
}

}  // namespace quanta
