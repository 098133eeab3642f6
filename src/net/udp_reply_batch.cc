#include "net/udp_reply_batch.h"

#include "net/plain_syscalls.h"

namespace quanta {

void UdpReplyBatch::add(Request& request, const sockaddr_storage& to, socklen_t to_len, uint16_t frame_id,
                        const unsigned char* head, uint32_t head_len, const void* body, uint32_t body_len,
                        uint32_t count) {
  const uint32_t reply = replies_++;
  sent_[reply] = {&request, true};
  for (uint32_t piece = 0; piece < count; ++piece) {
    const uint32_t d = datagrams_++;
    iovec* parts = &parts_[d * kReplyDatagramMaxParts];
    msghdr& m = messages_[d].msg_hdr;
    m = {};
    m.msg_name = const_cast<sockaddr_storage*>(&to);
    m.msg_namelen = to_len;
    m.msg_iov = parts;
    m.msg_iovlen = reply_datagram_parts(memcached_framing_, frame_id, piece, count, head, head_len, body, body_len,
                                        &frame_headers_[d * MemcachedFrame::kBytes], parts);
    owner_[d] = reply;
  }
}

std::span<const UdpReplyBatch::SentReply> UdpReplyBatch::send() {
  uint32_t at = 0;
  while (at < datagrams_) {
    const int sent = plain::sendmmsg(fd_, &messages_[at], datagrams_ - at, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent > 0) {
      at += static_cast<uint32_t>(sent);
      continue;
    }
    // The datagram at `at` was refused (a full send buffer, an unreachable client): its
    // reply is lost; the ones after it are still tried, each with its own chance.
    sent_[owner_[at]].ok = false;
    ++at;
  }
  const std::span<const SentReply> done(sent_.data(), replies_);
  datagrams_ = 0;
  replies_ = 0;
  return done;
}

}  // namespace quanta
