#include "net/udp_reply_datagrams.h"

#include <algorithm>

#include "net/memcached_frame.h"

namespace quanta {
namespace {

// A memcached-framed datagram's room for reply bytes.
constexpr uint32_t kRoomBytes = MemcachedFrame::kMaxDatagramBytes - MemcachedFrame::kBytes;

}  // namespace

uint32_t reply_datagram_count(bool memcached_framing, uint64_t reply_bytes) {
  if (!memcached_framing) return 1;
  const uint64_t pieces = std::max<uint64_t>(1, (reply_bytes + kRoomBytes - 1) / kRoomBytes);
  return pieces > UINT16_MAX ? 0 : static_cast<uint32_t>(pieces);
}

uint32_t reply_datagram_parts(bool memcached_framing, uint16_t frame_id, uint32_t index, uint32_t count,
                              const unsigned char* head, uint32_t head_len, const void* body, uint32_t body_len,
                              unsigned char* frame_header, iovec* parts) {
  auto* body_bytes = static_cast<unsigned char*>(const_cast<void*>(body));
  uint32_t n = 0;
  if (!memcached_framing) {
    // Empty parts are left out: the kernel would take them, but they say nothing.
    if (head_len > 0) parts[n++] = {const_cast<unsigned char*>(head), head_len};
    if (body_len > 0) parts[n++] = {body_bytes, body_len};
    return n;
  }
  MemcachedFrame{frame_id, static_cast<uint16_t>(index), static_cast<uint16_t>(count)}.encode(frame_header);
  parts[n++] = {frame_header, MemcachedFrame::kBytes};
  const uint64_t total_bytes = uint64_t{head_len} + body_len;
  const uint64_t at = uint64_t{index} * kRoomBytes;
  const uint64_t end = std::min(total_bytes, at + kRoomBytes);
  if (at < head_len) {
    const uint64_t to_head = std::min<uint64_t>(end, head_len);
    parts[n++] = {const_cast<unsigned char*>(head + at), static_cast<std::size_t>(to_head - at)};
  }
  if (end > head_len) {
    const uint64_t from_body = std::max<uint64_t>(at, head_len) - head_len;
    parts[n++] = {body_bytes + from_body, static_cast<std::size_t>(end - head_len - from_body)};
  }
  return n;
}

}  // namespace quanta
