#include "net/udp_front_end.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/tsc.h"
#include "net/request_framing.h"
#include "quanta/wire.h"

namespace quanta {

UdpFrontEnd::UdpFrontEnd(const ListenAddress& address, const FrontEndLimits& limits, NetCounters& counters)
    : limits_(limits),
      counters_(counters),
      pool_(limits.max_in_flight, limits.max_payload_bytes, limits.max_response_bytes),
      client_(limits.max_in_flight),
      client_len_(limits.max_in_flight, 0),
      buffer_bytes_(QUANTA_WIRE_REQUEST_HEADER + limits.max_payload_bytes + 1),
      buffers_(static_cast<std::size_t>(buffer_bytes_) * kBatch),
      from_(kBatch),
      iov_(kBatch),
      messages_(kBatch),
      control_(kControlBytes * kBatch) {
  fd_ = bind_listen_socket(address, 0);
  bound_ = bound_address(fd_);
  // Datagrams the kernel drops before poll() sees them (a full receive buffer) are
  // counted too: the kernel reports its running total with each datagram.
  const int on = 1;
  setsockopt(fd_, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on);
}

UdpFrontEnd::~UdpFrontEnd() {
  if (fd_ >= 0) ::close(fd_);
}

uint32_t UdpFrontEnd::poll(uint64_t, Request** out, uint32_t max) {
  if (max == 0 || closed_.load(std::memory_order_relaxed)) return 0;
  const uint32_t want = std::min(max, kBatch);
  for (uint32_t i = 0; i < want; ++i) {
    iov_[i] = {buffers_.data() + static_cast<std::size_t>(i) * buffer_bytes_, buffer_bytes_};
    messages_[i] = {};
    messages_[i].msg_hdr.msg_name = &from_[i];
    messages_[i].msg_hdr.msg_namelen = sizeof(sockaddr_storage);
    messages_[i].msg_hdr.msg_iov = &iov_[i];
    messages_[i].msg_hdr.msg_iovlen = 1;
    messages_[i].msg_hdr.msg_control = control_.data() + i * kControlBytes;
    messages_[i].msg_hdr.msg_controllen = kControlBytes;
  }
  const int got = recvmmsg(fd_, messages_.data(), want, MSG_DONTWAIT, nullptr);
  if (got < 0) {
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) counters_.add(NetCounter::kUdpReceiveErrors);
    return 0;
  }
  counters_.add(NetCounter::kUdpDatagrams, static_cast<uint64_t>(got));
  uint32_t n = 0;
  for (int i = 0; i < got; ++i) {
    note_kernel_drops(messages_[i].msg_hdr);
    Request* r = admit(static_cast<uint32_t>(i));
    if (r != nullptr) out[n++] = r;
  }
  return n;
}

void UdpFrontEnd::note_kernel_drops(msghdr& header) {
  for (cmsghdr* c = CMSG_FIRSTHDR(&header); c != nullptr; c = CMSG_NXTHDR(&header, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_RXQ_OVFL) continue;
    uint32_t total = 0;
    std::memcpy(&total, CMSG_DATA(c), sizeof total);
    // A running total (it wraps at 2^32): count what is new since the last one seen.
    counters_.add(NetCounter::kUdpDroppedByKernel, total - kernel_drops_seen_);
    kernel_drops_seen_ = total;
  }
}

Request* UdpFrontEnd::admit(uint32_t slot) {
  const mmsghdr& m = messages_[slot];
  const unsigned char* bytes = buffers_.data() + static_cast<std::size_t>(slot) * buffer_bytes_;
  const uint32_t len = m.msg_len;
  const sockaddr_storage& from = from_[slot];
  const socklen_t from_len = m.msg_hdr.msg_namelen;
  if (len == 0) {
    counters_.add(NetCounter::kUdpEmpty);
    return nullptr;
  }
  // A datagram must be exactly one request: the framing, then its size.
  const Frame frame = frame_request(bytes, len, limits_.max_payload_bytes, limits_.class_count);
  const quanta_wire_request& header = frame.header;
  // What cannot be read as a request is answered with id 0: its id is not known.
  if (len < QUANTA_WIRE_REQUEST_HEADER) {
    counters_.add(NetCounter::kUdpTruncated);
    send_reply(from, from_len, QUANTA_WIRE_BAD_REQUEST, 0, nullptr);
    return nullptr;
  }
  if (frame.verdict == FrameVerdict::kBadMagic) {
    counters_.add(NetCounter::kUdpBadMagic);
    send_reply(from, from_len, QUANTA_WIRE_BAD_REQUEST, 0, nullptr);
    return nullptr;
  }
  // Cut at the buffer (MSG_TRUNC: more than a header and the limit came) or announcing
  // more than the limit.
  if ((m.msg_hdr.msg_flags & MSG_TRUNC) != 0 || frame.verdict == FrameVerdict::kTooLarge) {
    counters_.add(NetCounter::kUdpTooLarge);
    send_reply(from, from_len, QUANTA_WIRE_BAD_REQUEST, header.request_id, nullptr);
    return nullptr;
  }
  if (frame.verdict == FrameVerdict::kNeedMore || frame.bytes != len) {
    counters_.add(NetCounter::kUdpLengthMismatch);
    send_reply(from, from_len, QUANTA_WIRE_BAD_REQUEST, header.request_id, nullptr);
    return nullptr;
  }
  if (frame.verdict == FrameVerdict::kBadClass) {
    counters_.add(NetCounter::kUdpBadClass);
    send_reply(from, from_len, QUANTA_WIRE_BAD_REQUEST, header.request_id, nullptr);
    return nullptr;
  }
  Request* r = pool_.acquire();
  if (r == nullptr) {
    counters_.add(NetCounter::kUdpOverloaded);
    send_reply(from, from_len, QUANTA_WIRE_OVERLOADED, header.request_id, nullptr);
    return nullptr;
  }
  fill_request(*r, frame, bytes, this, read_tsc());
  client_[r->pool_index] = from;
  client_len_[r->pool_index] = from_len;
  counters_.add(NetCounter::kUdpRequests);
  return r;
}

bool UdpFrontEnd::send_reply(const sockaddr_storage& to, socklen_t to_len, uint16_t kind, uint64_t request_id,
                             const Request* done) {
  quanta_wire_reply reply{};
  reply.kind = kind;
  reply.request_id = request_id;
  if (done != nullptr) {
    reply.response_len = done->response_len;
    reply.value = done->value;
    reply.status = done->status;
  }
  unsigned char header[QUANTA_WIRE_REPLY_HEADER];
  quanta_wire_encode_reply(header, &reply);
  iovec parts[2] = {{header, sizeof header}, {done != nullptr ? done->response : nullptr, reply.response_len}};
  msghdr m{};
  m.msg_name = const_cast<sockaddr_storage*>(&to);
  m.msg_namelen = to_len;
  m.msg_iov = parts;
  m.msg_iovlen = reply.response_len > 0 ? 2 : 1;
  if (sendmsg(fd_, &m, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0) return true;
  counters_.add(NetCounter::kUdpSendErrors);
  return false;
}

void UdpFrontEnd::complete(Request& request) {
  if (send_reply(client_[request.pool_index], client_len_[request.pool_index], QUANTA_WIRE_OK, request.cookie,
                 &request)) {
    counters_.add(NetCounter::kUdpRepliesOk);
  }
  pool_.release(request);
}

void UdpFrontEnd::reject(Request& request, RejectReason) {
  send_reply(client_[request.pool_index], client_len_[request.pool_index], QUANTA_WIRE_OVERLOADED, request.cookie,
             nullptr);
  counters_.add(NetCounter::kUdpOverloaded);
  pool_.release(request);
}

}  // namespace quanta
