// TCP: N connections, pipelined. Requests go out as soon as they are due whatever is still
// unanswered on the connection; when the kernel's send buffer is full the rest waits in a
// per-connection queue that every poll tries to flush, so the send loop never blocks.
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <deque>
#include <vector>

#include "core/tsc.h"
#include "load/channels.h"

namespace quanta {
namespace {

struct Connection {
  int fd = -1;
  bool closed = false;
  std::string queued;            // request bytes the socket had no room for yet
  std::vector<unsigned char> in; // bytes read, not yet parsed
  std::size_t in_start = 0;
  uint64_t skip = 0;             // response bytes of the last header still to discard
  bool have_reply_id = false;
  uint64_t last_reply_id = 0;
  std::deque<uint64_t> awaiting; // app protocols: ids sent on it and not yet answered, in order
};

int connect_one(const Target& target, unsigned timeout_ms) {
  const std::string name = "tcp://" + target.host + ":" + std::to_string(target.port);
  const int fd = ::socket(target.address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("cannot open a TCP socket: ") + std::strerror(errno));
  int error = 0;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&target.address), target.address_len) != 0) {
    error = errno;
    if (error == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(timeout_ms));
      if (ready == 0) {
        ::close(fd);
        throw std::runtime_error("cannot connect to " + name + ": no answer within " + std::to_string(timeout_ms) +
                                 " ms");
      }
      socklen_t len = sizeof error;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
    }
  }
  if (error != 0) {
    ::close(fd);
    throw std::runtime_error("cannot connect to " + name + ": " + std::strerror(error));
  }
  // Requests are small and due now: no Nagle delay.
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

class TcpChannel final : public Channel {
 public:
  TcpChannel(const Target& target, const ReplyFraming& framing, unsigned connections, unsigned timeout_ms)
      : framing_(framing) {
    connections_.resize(connections);
    try {
      for (Connection& c : connections_) c.fd = connect_one(target, timeout_ms);
    } catch (...) {
      close_all();
      throw;
    }
  }
  ~TcpChannel() override { close_all(); }

  bool send(uint64_t id, const unsigned char* bytes, std::size_t len) override {
    Connection& c = connections_[id % connections_.size()];
    if (c.closed) return false;
    if (!c.queued.empty()) {
      c.queued.append(reinterpret_cast<const char*>(bytes), len);
      if (framing_.app_protocol()) c.awaiting.push_back(id);
      flush(c);
      return true;
    }
    const ssize_t n = ::send(c.fd, bytes, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      close(c);
      return false;
    }
    const std::size_t sent = n > 0 ? static_cast<std::size_t>(n) : 0;
    if (sent < len) c.queued.append(reinterpret_cast<const char*>(bytes) + sent, len - sent);
    if (framing_.app_protocol()) c.awaiting.push_back(id);
    return true;
  }

  void poll(InflightTable& table, ReplyAnomalies& anomalies) override {
    for (Connection& c : connections_) {
      if (c.closed) continue;
      if (!c.queued.empty()) flush(c);
      read(c, table, anomalies);
    }
  }

  std::size_t queued_bytes() const override {
    std::size_t total = 0;
    for (const Connection& c : connections_) total += c.queued.size();
    return total;
  }
  unsigned closed_connections() const override { return closed_; }

  void wait_readable(uint64_t timeout_ns) override {
    fds_.clear();
    for (const Connection& c : connections_) {
      // A connection with bytes still to send is polled, not waited on: go back at once.
      if (!c.closed && !c.queued.empty()) return;
      if (!c.closed) fds_.push_back(c.fd);
    }
    wait_for_any_readable(fds_.data(), fds_.size(), timeout_ns);
  }

 private:
  void flush(Connection& c) {
    while (!c.queued.empty()) {
      const ssize_t n = ::send(c.fd, c.queued.data(), c.queued.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) close(c);
        return;
      }
      c.queued.erase(0, static_cast<std::size_t>(n));
    }
  }

  void read(Connection& c, InflightTable& table, ReplyAnomalies& anomalies) {
    // At most this many chunks per poll, so one busy connection cannot keep the loop from sending.
    for (int reads = 0; reads < 16; ++reads) {
      unsigned char chunk[16384];
      const ssize_t n = ::recv(c.fd, chunk, sizeof chunk, MSG_DONTWAIT);
      if (n == 0) {
        close(c);  // the server closed it; its requests still in flight will time out
        return;
      }
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        if (errno == EINTR) continue;
        ++receive_errors_;
        close(c);
        return;
      }
      const uint64_t now = read_tsc();
      std::size_t at = 0;
      const std::size_t have = static_cast<std::size_t>(n);
      // Response bytes of a reply whose header came earlier.
      const std::size_t skipped = static_cast<std::size_t>(std::min<uint64_t>(c.skip, have));
      c.skip -= skipped;
      at += skipped;
      c.in.insert(c.in.end(), chunk + at, chunk + have);
      parse(c, now, table, anomalies);
      if (c.closed) return;
    }
  }

  void parse(Connection& c, uint64_t now, InflightTable& table, ReplyAnomalies& anomalies) {
    for (;;) {
      if (c.skip > 0) {
        const std::size_t available = c.in.size() - c.in_start;
        const std::size_t skipped = static_cast<std::size_t>(std::min<uint64_t>(c.skip, available));
        c.skip -= skipped;
        c.in_start += skipped;
        if (c.skip > 0) break;
      }
      const std::size_t available = c.in.size() - c.in_start;
      const FramedReply reply = framing_.frame(c.in.data() + c.in_start, available);
      if (reply.status == FramedReply::Status::kNeedMore) break;
      if (reply.status == FramedReply::Status::kMalformed) {
        ++anomalies.malformed;
        close(c);
        return;
      }
      // The default protocol's response bytes may still be on their way: skip them as they come.
      const std::size_t here = std::min<std::size_t>(reply.bytes, available);
      c.in_start += here;
      c.skip = reply.bytes - here;
      uint64_t id = 0;
      if (reply.has_id) {
        id = reply.request_id;
        // Requests on a connection have increasing ids, so in-order replies do too.
        if (c.have_reply_id && id <= c.last_reply_id) ++anomalies.out_of_order;
        c.have_reply_id = true;
        c.last_reply_id = id;
      } else if (c.awaiting.empty()) {
        ++anomalies.unknown;  // a reply to nothing this connection sent
        continue;
      } else {
        // An app protocol's replies answer the connection's requests in order.
        id = c.awaiting.front();
        c.awaiting.pop_front();
      }
      table.resolve(id, reply.kind, now, anomalies);
    }
    // Keep only the unparsed tail.
    c.in.erase(c.in.begin(), c.in.begin() + static_cast<std::ptrdiff_t>(c.in_start));
    c.in_start = 0;
  }

  void close(Connection& c) {
    if (c.closed) return;
    ::close(c.fd);
    c.closed = true;
    c.queued.clear();
    ++closed_;
  }

  void close_all() {
    for (Connection& c : connections_) {
      if (c.fd >= 0 && !c.closed) ::close(c.fd);
      c.closed = true;
    }
  }

  const ReplyFraming& framing_;
  std::vector<Connection> connections_;
  std::vector<int> fds_;  // wait_readable's scratch
  unsigned closed_ = 0;
};

}  // namespace

std::unique_ptr<Channel> open_tcp_channel(const Target& target, const ReplyFraming& framing, unsigned connections,
                                          unsigned connect_timeout_ms) {
  return std::make_unique<TcpChannel>(target, framing, connections, connect_timeout_ms);
}

}  // namespace quanta
