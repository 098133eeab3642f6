// How the load client reads replies, in quanta's default protocol (quanta/wire.h: every
// reply carries its request's id and kind in a header) or in an app's own protocol
// (quanta/protocol.h: the app's frame_reply says where a reply ends and its kind; which
// request it answers follows from the order of a TCP connection, or from memcached's UDP
// frame header). The channels call this and keep the matching; nothing here touches a
// socket.
#pragma once

#include <cstddef>
#include <cstdint>

#include "quanta/protocol.h"

namespace quanta {

struct FramedReply {
  enum class Status { kNeedMore, kReply, kMalformed };
  Status status = Status::kNeedMore;
  uint32_t bytes = 0;       // kReply: the reply's length at the front
  uint16_t kind = 0;        // a QUANTA_WIRE_* / QUANTA_REPLY_* kind (the same numbers)
  bool has_id = false;      // the reply names its request (default protocol)
  uint64_t request_id = 0;
};

class ReplyFraming {
 public:
  // `app_protocol`: NULL for the default protocol.
  explicit ReplyFraming(const quanta_protocol* app_protocol) : app_(app_protocol) {}

  bool app_protocol() const { return app_ != nullptr; }
  // Over UDP, each datagram starts with memcached's frame header.
  bool memcached_datagrams() const { return app_ != nullptr && app_->datagram == QUANTA_DATAGRAM_MEMCACHED; }

  // The reply at the front of a stream's `len` bytes. With the default protocol a reply
  // is whole once its header is here (`bytes` counts the response after it too, which the
  // channel may skip as it comes).
  FramedReply frame(const unsigned char* data, std::size_t len) const;

 private:
  const quanta_protocol* app_;
};

}  // namespace quanta
