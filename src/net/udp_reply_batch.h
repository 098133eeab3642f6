// The dispatcher's UDP replies, gathered and sent with one sendmmsg (`--udp-replies
// dispatcher`). Every array is a fixed member, so adding and sending never allocate: the
// datagrams' headers, scatter parts and memcached frame headers. A reply's head and body
// are pointed to, not copied: they must stay put until send() returns (the request's
// record is released only after).
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <span>

#include "net/memcached_frame.h"
#include "net/udp_reply_datagrams.h"
#include "runtime/request.h"

namespace quanta {

class UdpReplyBatch {
 public:
  // Datagrams per sendmmsg. A reply that needs more is sent apart (udp_front_end.cc).
  static constexpr uint32_t kDatagrams = 64;

  struct SentReply {
    Request* request;
    bool ok;  // the kernel took every datagram of it
  };

  UdpReplyBatch(int fd, bool memcached_framing) : fd_(fd), memcached_framing_(memcached_framing) {}

  uint32_t room() const { return kDatagrams - datagrams_; }
  bool empty() const { return datagrams_ == 0; }
  uint32_t replies() const { return replies_; }

  // Adds the `count` datagrams (reply_datagram_count, at most room()) of `request`'s reply
  // to `to`. `to`, `head` and `body` must stay put until send().
  void add(Request& request, const sockaddr_storage& to, socklen_t to_len, uint16_t frame_id,
           const unsigned char* head, uint32_t head_len, const void* body, uint32_t body_len, uint32_t count);

  // Sends what was added (sendmmsg, again past a datagram the kernel refused) and empties
  // the batch. The replies it held, each with whether it went out whole; valid until the
  // next add().
  std::span<const SentReply> send();

 private:
  int fd_;
  bool memcached_framing_;
  uint32_t datagrams_ = 0;
  uint32_t replies_ = 0;
  std::array<mmsghdr, kDatagrams> messages_{};
  std::array<iovec, kDatagrams * kReplyDatagramMaxParts> parts_{};
  std::array<unsigned char, kDatagrams * MemcachedFrame::kBytes> frame_headers_{};
  std::array<uint32_t, kDatagrams> owner_{};  // each datagram's reply, an index into replies_
  // Each datagram belongs to one reply, so there are never more replies than datagrams.
  std::array<SentReply, kDatagrams> sent_{};
};

}  // namespace quanta
