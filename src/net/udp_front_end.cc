#include "net/udp_front_end.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/tsc.h"
#include "net/memcached_frame.h"
#include "net/plain_syscalls.h"
#include "net/udp_reply_datagrams.h"
#include "quanta/wire.h"

namespace quanta {

UdpFrontEnd::UdpFrontEnd(const ListenAddress& address, const FrontEndLimits& limits, const WireFormat& format,
                         uint32_t datagram, NetCounters& counters, UdpReplySender sender,
                         UdpReceiveMethod receive)
    : fd_(bind_listen_socket(address, 0)),
      limits_(limits),
      format_(format),
      memcached_framing_(datagram == QUANTA_DATAGRAM_MEMCACHED),
      counters_(counters),
      pool_(limits.max_in_flight, limits.max_payload_bytes, limits.max_response_bytes),
      client_(limits.max_in_flight),
      client_len_(limits.max_in_flight, 0),
      frame_id_(limits.max_in_flight, 0),
      sender_(sender),
      heads_(sender == UdpReplySender::kDispatcher ? std::size_t{limits.max_in_flight} * WireFormat::kMaxPrefixBytes : 0),
      head_len_(sender == UdpReplySender::kDispatcher ? limits.max_in_flight : 0, 0),
      // Holds the whole pool, and each record is in it at most once: a push never fails.
      finished_(sender == UdpReplySender::kDispatcher ? limits.max_in_flight : 1),
      batch_(fd_, memcached_framing_),
      received_(kBatch) {
  bound_ = bound_address(fd_);
  // Datagrams the kernel drops before poll() sees them (a full receive buffer) are
  // counted too: the receivers ask for the kernel's running total with each datagram.
  const uint32_t buffer_bytes = format.max_frame_bytes() + MemcachedFrame::kBytes + 1;
  try {
    receiver_ = receive == UdpReceiveMethod::kIoUring ? make_io_uring_receiver(fd_, buffer_bytes)
                                                      : make_recvmmsg_receiver(fd_, buffer_bytes, kBatch);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

UdpFrontEnd::~UdpFrontEnd() {
  if (fd_ >= 0) ::close(fd_);
}

uint32_t UdpFrontEnd::poll(uint64_t, Request** out, uint32_t max) {
  // Replies first, also once closed: they free records, and the stop waits for them.
  if (sender_ == UdpReplySender::kDispatcher) send_finished();
  if (max == 0 || closed_.load(std::memory_order_relaxed)) return 0;
  const uint32_t got = receiver_->receive(received_.data(), std::min(max, kBatch));
  if (receiver_->errors() != receive_errors_seen_) {
    counters_.add(NetCounter::kUdpReceiveErrors, receiver_->errors() - receive_errors_seen_);
    receive_errors_seen_ = receiver_->errors();
  }
  if (got == 0) return 0;
  counters_.add(NetCounter::kUdpDatagrams, got);
  note_kernel_drops();
  uint32_t n = 0;
  for (uint32_t i = 0; i < got; ++i) {
    Request* r = admit(received_[i]);
    if (r != nullptr) out[n++] = r;
  }
  return n;
}

void UdpFrontEnd::note_kernel_drops() {
  // A running total (it wraps at 2^32): count what is new since the last one seen.
  const uint32_t total = receiver_->kernel_drops_total();
  counters_.add(NetCounter::kUdpDroppedByKernel, total - kernel_drops_seen_);
  kernel_drops_seen_ = total;
}

Request* UdpFrontEnd::admit(const ReceivedDatagram& datagram) {
  const unsigned char* bytes = datagram.bytes;
  uint32_t len = datagram.len;
  const sockaddr_storage& from = *datagram.from;
  const socklen_t from_len = datagram.from_len;
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
  if (datagram.truncated || len > format_.max_frame_bytes()) {
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
  const uint32_t count = reply_datagram_count(memcached_framing_, uint64_t{head_len} + body_len);
  if (count == 0) {
    counters_.add(NetCounter::kUdpSendErrors);
    return false;
  }
  msghdr m{};
  m.msg_name = const_cast<sockaddr_storage*>(&to);
  m.msg_namelen = to_len;
  iovec parts[kReplyDatagramMaxParts];
  unsigned char frame_header[MemcachedFrame::kBytes];
  m.msg_iov = parts;
  for (uint32_t piece = 0; piece < count; ++piece) {
    m.msg_iovlen = reply_datagram_parts(memcached_framing_, frame_id, piece, count, head, head_len, body, body_len,
                                        frame_header, parts);
    if (plain::sendmsg(fd_, &m, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
      counters_.add(NetCounter::kUdpSendErrors);
      return false;
    }
  }
  return true;
}

void UdpFrontEnd::send_finished() {
  Request* r = nullptr;
  while (finished_.try_pop(r)) {
    const uint32_t i = r->pool_index;
    const unsigned char* head = &heads_[std::size_t{i} * WireFormat::kMaxPrefixBytes];
    const uint32_t count = reply_datagram_count(memcached_framing_, uint64_t{head_len_[i]} + r->response_len);
    if (count == 0 || count > UdpReplyBatch::kDatagrams) {
      // Larger than a whole batch (a response of ~90 KB and more, framed): sent on its own.
      send_counted_reply(client_[i], client_len_[i], frame_id_[i], head, head_len_[i], r->response, r->response_len);
      pool_.release(*r);
      continue;
    }
    if (count > batch_.room()) send_batch();
    batch_.add(*r, client_[i], client_len_[i], frame_id_[i], head, head_len_[i], r->response, r->response_len, count);
  }
  if (!batch_.empty()) send_batch();
}

// Replies are counted before their datagrams can leave (a client that holds one may ask
// for a snapshot at once) and moved to send_errors when the kernel refused them. Counted
// once per batch: the counters are atomics that a snapshot may read meanwhile.
void UdpFrontEnd::send_batch() {
  counters_.add(NetCounter::kUdpRepliesOk, batch_.replies());
  uint64_t failed = 0;
  for (const UdpReplyBatch::SentReply& s : batch_.send()) {
    failed += s.ok ? 0 : 1;
    pool_.release(*s.request);
  }
  counters_.add(NetCounter::kUdpReplyBatches);
  if (failed > 0) {
    counters_.take_back(NetCounter::kUdpRepliesOk, failed);
    counters_.add(NetCounter::kUdpSendErrors, failed);
  }
}

void UdpFrontEnd::send_counted_reply(const sockaddr_storage& to, socklen_t to_len, uint16_t frame_id,
                                     const unsigned char* head, uint32_t head_len, const void* body,
                                     uint32_t body_len) {
  // Counted first, as in send_batch; send_reply counts a failure in send_errors.
  counters_.add(NetCounter::kUdpRepliesOk);
  if (!send_reply(to, to_len, frame_id, head, head_len, body, body_len)) counters_.take_back(NetCounter::kUdpRepliesOk);
}

void UdpFrontEnd::flush_after_stop() {
  if (sender_ == UdpReplySender::kDispatcher) send_finished();
}

void UdpFrontEnd::complete(Request& request) {
  const uint32_t i = request.pool_index;
  unsigned char own_head[WireFormat::kMaxPrefixBytes];
  const bool to_dispatcher = sender_ == UdpReplySender::kDispatcher;
  // The head is written where the sender will read it: the record's slot when the
  // dispatcher sends, this stack frame otherwise.
  unsigned char* head = to_dispatcher ? &heads_[std::size_t{i} * WireFormat::kMaxPrefixBytes] : own_head;
  const uint32_t head_len = format_.reply_prefix(request, head);
  if (head_len + request.response_len == 0 && format_.empty_response_is_silent()) {
    // The protocol's "no reply" (memcached's noreply): nothing to send or hand over, but
    // the request was answered as asked, so it counts as a reply (as over TCP), which keeps
    // every request in replies_ok, overloaded or send_errors.
    counters_.add(NetCounter::kUdpRepliesOk);
  } else if (to_dispatcher) {
    head_len_[i] = static_cast<uint8_t>(head_len);
    finished_.try_push(&request);
    finished_bell_.ring();
    return;
  } else {
    send_counted_reply(client_[i], client_len_[i], frame_id_[i], head, head_len, request.response,
                       request.response_len);
  }
  pool_.release(request);
}

bool UdpFrontEnd::prepare_idle_wait(IdleWait& wait) {
  if (!wait.add_fd(receiver_->wait_fd()) || !wait.add_fd(finished_bell_.fd())) return false;
  finished_bell_.arm();
  return finished_.looks_empty() && !receiver_->holds_arrivals();
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
