// The client's sockets: a Channel sends one encoded request at a time and, when polled,
// reads whatever replies have arrived without blocking, resolving them in the in-flight
// table. UDP: one connected socket, one request per datagram (after memcached's frame
// header when the app's protocol uses it). TCP: N connections, request i on connection
// i mod N (round robin), pipelined: a connection carries every request sent on it without
// waiting for replies, and its replies must come back in that order. Where the replies
// end and which request each answers is the ReplyFraming's business (reply_framing.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "load/inflight_table.h"
#include "load/reply_framing.h"
#include "load/target.h"

namespace quanta {

class Channel {
 public:
  virtual ~Channel() = default;
  // Sends request `id` (its header and payload). False when the socket refused it (UDP: the
  // kernel's buffer was full or the peer is unreachable; TCP: the connection is closed).
  virtual bool send(uint64_t id, const unsigned char* bytes, std::size_t len) = 0;
  // Reads every reply already here; never blocks.
  virtual void poll(InflightTable& table, ReplyAnomalies& anomalies) = 0;
  // Sleeps in the kernel until a reply may be readable or `timeout_ns` passed (--wait block).
  virtual void wait_readable(uint64_t timeout_ns) = 0;
  // TCP: bytes a full socket buffer made it keep back (sent on later calls of poll).
  virtual std::size_t queued_bytes() const { return 0; }
  // Errors the sockets reported while reading (e.g. ICMP port unreachable over UDP).
  uint64_t receive_errors() const { return receive_errors_; }
  // TCP: connections the server closed during the run.
  virtual unsigned closed_connections() const { return 0; }

 protected:
  uint64_t receive_errors_ = 0;
};

// Opens the sockets (TCP: connects each, waiting at most `connect_timeout_ms`). Throws
// std::runtime_error naming the target when a socket cannot be opened or connected.
// Sleeps until one of `fds` is readable or `timeout_ns` passed (ppoll; a signal ends it early).
void wait_for_any_readable(const int* fds, std::size_t count, uint64_t timeout_ns);

std::unique_ptr<Channel> open_channel(const Target& target, const ReplyFraming& framing, unsigned connections,
                                      unsigned connect_timeout_ms);

}  // namespace quanta
