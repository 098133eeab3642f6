// UDP: one socket, connect()ed so the kernel drops datagrams from anyone but the target
// and send/recv need no address.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/tsc.h"
#include "load/channel.h"
#include "load/channels.h"
#include "quanta/wire.h"

namespace quanta {
namespace {

class UdpChannel final : public Channel {
 public:
  explicit UdpChannel(const Target& target) {
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

  bool send(uint64_t, const unsigned char* bytes, std::size_t len) override {
    return ::send(fd_, bytes, len, MSG_DONTWAIT) == static_cast<ssize_t>(len);
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
      quanta_wire_reply reply;
      if (quanta_wire_decode_reply(datagram, static_cast<uint32_t>(n), &reply) != 1) {
        ++anomalies.malformed;
        continue;
      }
      table.resolve(reply.request_id, reply.kind, now, anomalies);
    }
  }

 private:
  int fd_ = -1;
};

}  // namespace

std::unique_ptr<Channel> open_udp_channel(const Target& target) { return std::make_unique<UdpChannel>(target); }

}  // namespace quanta
