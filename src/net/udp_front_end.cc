#include "net/udp_front_end.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/tsc.h"
#include "net/memcached_frame.h"
#include "quanta/wire.h"

namespace quanta {

UdpFrontEnd::UdpFrontEnd(const ListenAddress& address, const FrontEndLimits& limits, const WireFormat& format,
                         uint32_t datagram, NetCounters& counters)
    : limits_(limits),
      format_(format),
      memcached_framing_(datagram == QUANTA_DATAGRAM_MEMCACHED),
      counters_(counters),
      pool_(limits.max_in_flight, limits.max_payload_bytes, limits.max_response_bytes),
      client_(limits.max_in_flight),
      client_len_(limits.max_in_flight, 0),
      frame_id_(limits.max_in_flight, 0),
      buffer_bytes_(format.max_frame_bytes() + MemcachedFrame::kBytes + 1),
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
  uint32_t len = m.msg_len;
  const sockaddr_storage& from = from_[slot];
  const socklen_t from_len = m.msg_hdr.msg_namelen;
  if (len == 0) {
    counters_.add(NetCounter::kUdpEmpty);
    return nullptr;
  }
  uint16_t frame_id = 0;
  if (memcached_framing_) {
    // The request must fit one datagram (number 0 of 1), as memcached requires.
    MemcachedFrame frame;
    if (!frame.decode(bytes, len) || frame.sequence != 0 || frame.count != 1) {
      counters_.add(NetCounter::kUdpBadDatagramHeader);
      return nullptr;
    }
    frame_id = frame.request_id;
    bytes += MemcachedFrame::kBytes;
    len -= MemcachedFrame::kBytes;
  }
  FramedInput in = format_.frame_datagram(bytes, std::min(len, format_.max_frame_bytes()));
  if ((m.msg_hdr.msg_flags & MSG_TRUNC) != 0 || len > format_.max_frame_bytes()) {
    // More than the largest request came: answered as the protocol answers its first
    // bytes (the default protocol: BAD_REQUEST), never run.
    in.kind = InputKind::kAnswer;
    in.reason = RefusalReason::kTooLarge;
  }
  if (in.kind != InputKind::kRequest) {
    counters_.add(refusal_counter(true, in.reason));
    if (in.answer_len > 0) send_reply(from, from_len, frame_id, in.answer, in.answer_len, nullptr, 0);
    return nullptr;
  }
  Request* r = pool_.acquire();
  if (r == nullptr) {
    counters_.add(NetCounter::kUdpOverloaded);
    unsigned char answer[QUANTA_FRAME_REPLY_CAPACITY];
    const uint32_t n = format_.overloaded(in.request_id, answer);
    if (n > 0) send_reply(from, from_len, frame_id, answer, n, nullptr, 0);
    return nullptr;
  }
  fill_request(*r, in, bytes, next_id_++, this, read_tsc());
  client_[r->pool_index] = from;
  client_len_[r->pool_index] = from_len;
  frame_id_[r->pool_index] = frame_id;
  counters_.add(NetCounter::kUdpRequests);
  return r;
}

bool UdpFrontEnd::send_reply(const sockaddr_storage& to, socklen_t to_len, uint16_t frame_id, const unsigned char* head,
                             uint32_t head_len, const void* body, uint32_t body_len) {
  msghdr m{};
  m.msg_name = const_cast<sockaddr_storage*>(&to);
  m.msg_namelen = to_len;
  if (!memcached_framing_) {
    iovec parts[2] = {{const_cast<unsigned char*>(head), head_len}, {const_cast<void*>(body), body_len}};
    m.msg_iov = head_len > 0 ? parts : parts + 1;
    m.msg_iovlen = (head_len > 0 ? 1 : 0) + (body_len > 0 ? 1 : 0);
    if (sendmsg(fd_, &m, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0) return true;
    counters_.add(NetCounter::kUdpSendErrors);
    return false;
  }
  // memcached framing: the reply (head, then body) in pieces of at most a datagram's room,
  // each after a frame header: the request's id, the piece's number, how many there are.
  constexpr uint32_t kRoom = MemcachedFrame::kMaxDatagramBytes - MemcachedFrame::kBytes;
  const uint64_t total_bytes = uint64_t{head_len} + body_len;
  const uint64_t pieces = std::max<uint64_t>(1, (total_bytes + kRoom - 1) / kRoom);
  if (pieces > UINT16_MAX) {
    counters_.add(NetCounter::kUdpSendErrors);
    return false;
  }
  const auto* body_bytes = static_cast<const unsigned char*>(body);
  uint64_t at = 0;
  for (uint64_t piece = 0; piece < pieces; ++piece) {
    unsigned char header[MemcachedFrame::kBytes];
    MemcachedFrame{frame_id, static_cast<uint16_t>(piece), static_cast<uint16_t>(pieces)}.encode(header);
    iovec parts[3];
    int count = 0;
    parts[count++] = {header, sizeof header};
    const uint64_t end = std::min(total_bytes, at + kRoom);
    if (at < head_len) {
      const uint64_t to_head = std::min<uint64_t>(end, head_len);
      parts[count++] = {const_cast<unsigned char*>(head + at), static_cast<std::size_t>(to_head - at)};
    }
    if (end > head_len) {
      const uint64_t from_body = std::max<uint64_t>(at, head_len) - head_len;
      parts[count++] = {const_cast<unsigned char*>(body_bytes + from_body),
                        static_cast<std::size_t>(end - head_len - from_body)};
    }
    m.msg_iov = parts;
    m.msg_iovlen = static_cast<std::size_t>(count);
    if (sendmsg(fd_, &m, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
      counters_.add(NetCounter::kUdpSendErrors);
      return false;
    }
    at = end;
  }
  return true;
}

void UdpFrontEnd::complete(Request& request) {
  const uint32_t i = request.pool_index;
  unsigned char head[WireFormat::kMaxPrefixBytes];
  const uint32_t head_len = format_.reply_prefix(request, head);
  if (head_len + request.response_len == 0 && format_.empty_response_is_silent()) {
    // The protocol's "no reply" (memcached's noreply): nothing to send, but the request
    // was answered as asked, so it counts as a reply (as over TCP), which keeps every
    // request in replies_ok, overloaded or send_errors.
    counters_.add(NetCounter::kUdpRepliesOk);
  } else if (send_reply(client_[i], client_len_[i], frame_id_[i], head, head_len, request.response,
                        request.response_len)) {
    counters_.add(NetCounter::kUdpRepliesOk);
  }
  pool_.release(request);
}

void UdpFrontEnd::reject(Request& request, RejectReason) {
  const uint32_t i = request.pool_index;
  unsigned char answer[QUANTA_FRAME_REPLY_CAPACITY];
  const uint32_t n = format_.overloaded(request.cookie, answer);
  if (n > 0) send_reply(client_[i], client_len_[i], frame_id_[i], answer, n, nullptr, 0);
  counters_.add(NetCounter::kUdpOverloaded);
  pool_.release(request);
}

}  // namespace quanta
