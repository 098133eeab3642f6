// How one UDP reply is cut into datagrams. Without framing a reply is one datagram (the
// protocol's head, then the handler's response). With memcached's UDP framing it is cut
// into pieces of at most 1400 bytes, as memcached does, each after a frame header that
// carries the request's id, the piece's number and how many pieces there are. The worker
// that sends with sendmsg and the dispatcher that batches with sendmmsg cut replies alike
// through these two functions.
#pragma once

#include <sys/uio.h>

#include <cstdint>

namespace quanta {

// Scatter parts of one datagram at most: frame header, a slice of the head, a slice of the body.
inline constexpr uint32_t kReplyDatagramMaxParts = 3;

// The datagrams a reply of `reply_bytes` (head and body) takes; 0 when memcached framing
// cannot number that many (over 65535 pieces).
uint32_t reply_datagram_count(bool memcached_framing, uint64_t reply_bytes);

// Fills `parts` (room for kReplyDatagramMaxParts) with datagram `index` of `count` of the
// reply and returns how many parts it has. With memcached framing the frame header is
// written to `frame_header` (MemcachedFrame::kBytes), which must live until the datagram
// is sent; head and body are pointed to, not copied.
uint32_t reply_datagram_parts(bool memcached_framing, uint16_t frame_id, uint32_t index, uint32_t count,
                              const unsigned char* head, uint32_t head_len, const void* body, uint32_t body_len,
                              unsigned char* frame_header, iovec* parts);

}  // namespace quanta
