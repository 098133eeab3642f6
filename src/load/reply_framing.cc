#include "load/reply_framing.h"

#include <algorithm>

#include "quanta/wire.h"

namespace quanta {
namespace {

// A default-protocol reply claiming more response bytes than this is taken for garbage: a
// stream cannot find the next header after it.
constexpr uint32_t kMaxResponseBytes = 64u << 20;

}  // namespace

FramedReply ReplyFraming::frame(const unsigned char* data, std::size_t len) const {
  FramedReply r;
  const auto available = static_cast<uint32_t>(std::min<std::size_t>(len, UINT32_MAX));
  if (app_ == nullptr) {
    quanta_wire_reply reply;
    const int got = quanta_wire_decode_reply(data, available, &reply);
    if (got == 0) return r;
    if (got < 0 || reply.response_len > kMaxResponseBytes) {
      r.status = FramedReply::Status::kMalformed;
      return r;
    }
    r.status = FramedReply::Status::kReply;
    r.bytes = QUANTA_WIRE_REPLY_HEADER + reply.response_len;
    r.kind = reply.kind;
    r.has_id = true;
    r.request_id = reply.request_id;
    return r;
  }
  uint32_t length = 0;
  int kind = QUANTA_REPLY_OK;
  const int got = app_->frame_reply(data, available, &length, &kind);
  if (got == 0) return r;
  if (got < 0 || length == 0 || length > available || kind < QUANTA_REPLY_OK || kind > QUANTA_REPLY_ERROR) {
    r.status = FramedReply::Status::kMalformed;
    return r;
  }
  r.status = FramedReply::Status::kReply;
  r.bytes = length;
  r.kind = static_cast<uint16_t>(kind);
  return r;
}

}  // namespace quanta
