// UDP: one socket, connect()ed so the kernel drops datagrams from anyone but the target
// and send/recv need no address. With the default protocol a reply names its request; with
// memcached's UDP framing a reply's frame header carries the low 16 bits of the request's
// id, and a reply may come in several datagrams: it is counted answered when all have come.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/tsc.h"
#include "load/channel.h"
#include "load/channels.h"
#include "net/memcached_frame.h"
#include "quanta/wire.h"

namespace quanta {
namespace {

class UdpChannel final : public Channel {
 public:
  UdpChannel(const Target& target, const ReplyFraming& framing)
      : framing_(framing), memcached_(framing.memcached_datagrams()) {
    if (memcached_) {
      frame_owner_.assign(kFrameIds, UINT64_MAX);
      frame_got_.assign(kFrameIds, 0);
      frame_kind_.assign(kFrameIds, QUANTA_REPLY_OK);
    }
    fd_ = ::socket(target.address.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw std::runtime_error(std::string("cannot open a UDP socket: ") + std::strerror(errno));
    // Room for bursts of replies between two polls.
    const int buffer_bytes = 4 << 20;
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &buffer_bytes, sizeof buffer_bytes);
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&target.address), target.address_len) != 0) {
      const int error = errno;
      ::close(fd_);
      throw std::runtime_error("cannot address udp://" + target.host + ":" + std::to_string(target.port) + ": " +
                               std::strerror(error));
    }
  }
  ~UdpChannel() override { ::close(fd_); }

  void wait_readable(uint64_t timeout_ns) override { wait_for_any_readable(&fd_, 1, timeout_ns); }

  bool send(uint64_t id, const unsigned char* bytes, std::size_t len) override {
    if (!memcached_) return ::send(fd_, bytes, len, MSG_DONTWAIT) == static_cast<ssize_t>(len);
    // The frame id is the request id's low 16 bits: ids are unambiguous as long as a reply
    // comes within 65536 sends of its request (the timeout counts it dropped otherwise).
    const auto frame_id = static_cast<uint16_t>(id);
    unsigned char header[MemcachedFrame::kBytes];
    MemcachedFrame{frame_id, 0, 1}.encode(header);
    iovec parts[2] = {{header, sizeof header}, {const_cast<unsigned char*>(bytes), len}};
    msghdr m{};
    m.msg_iov = parts;
    m.msg_iovlen = 2;
    frame_owner_[frame_id] = id;
    frame_got_[frame_id] = 0;
    frame_kind_[frame_id] = QUANTA_REPLY_OK;
    return ::sendmsg(fd_, &m, MSG_DONTWAIT) == static_cast<ssize_t>(len + sizeof header);
  }

  void poll(InflightTable& table, ReplyAnomalies& anomalies) override {
    // A reply is a header and the response; anything longer than the buffer is truncated,
    // which only loses response bytes the client does not read.
    unsigned char datagram[2048];
    // At most this many per poll, so a flood of replies cannot keep the loop from sending.
    for (int reads = 0; reads < 256; ++reads) {
      const ssize_t n = ::recv(fd_, datagram, sizeof datagram, MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        if (errno == EINTR) continue;
        ++receive_errors_;  // ECONNREFUSED: nothing listens at the target (yet)
        return;
      }
      const uint64_t now = read_tsc();
      if (memcached_) {
        take_frame(datagram, static_cast<uint32_t>(n), now, table, anomalies);
        continue;
      }
      const FramedReply reply = framing_.frame(datagram, static_cast<std::size_t>(n));
      if (reply.status != FramedReply::Status::kReply || !reply.has_id) {
        ++anomalies.malformed;
        continue;
      }
      table.resolve(reply.request_id, reply.kind, now, anomalies);
    }
  }

 private:
  static constexpr std::size_t kFrameIds = 65536;

  // One datagram of a memcached-framed reply.
  void take_frame(const unsigned char* datagram, uint32_t n, uint64_t now, InflightTable& table,
                  ReplyAnomalies& anomalies) {
    MemcachedFrame frame;
    if (!frame.decode(datagram, n) || frame.count == 0 || frame.sequence >= frame.count) {
      ++anomalies.malformed;
      return;
    }
    const uint64_t id = frame_owner_[frame.request_id];
    if (id == UINT64_MAX) {
      ++anomalies.unknown;
      return;
    }
    if (frame.sequence == 0) {
      // The reply's kind is in its first line, in the first datagram.
      const FramedReply reply = framing_.frame(datagram + MemcachedFrame::kBytes, n - MemcachedFrame::kBytes);
      if (reply.status == FramedReply::Status::kMalformed) {
        ++anomalies.malformed;
        return;
      }
      if (reply.status == FramedReply::Status::kReply) frame_kind_[frame.request_id] = static_cast<uint8_t>(reply.kind);
    }
    if (++frame_got_[frame.request_id] < frame.count) return;
    table.resolve(id, frame_kind_[frame.request_id], now, anomalies);
    frame_owner_[frame.request_id] = UINT64_MAX;
  }

  int fd_ = -1;
  const ReplyFraming& framing_;
  bool memcached_;
  // memcached framing, by frame id: the request it stands for, datagrams come, the kind.
  std::vector<uint64_t> frame_owner_;
  std::vector<uint16_t> frame_got_;
  std::vector<uint8_t> frame_kind_;
};

}  // namespace

std::unique_ptr<Channel> open_udp_channel(const Target& target, const ReplyFraming& framing) {
  return std::make_unique<UdpChannel>(target, framing);
}

}  // namespace quanta
