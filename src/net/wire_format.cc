#include "net/wire_format.h"

#include <algorithm>
#include <cstring>

#include "net/request_framing.h"
#include "quanta/wire.h"

namespace quanta {
namespace {

// A BAD_REQUEST reply header for `request_id` as the answer.
FramedInput bad_request(InputKind kind, RefusalReason reason, uint32_t length, uint64_t request_id) {
  FramedInput in;
  in.kind = kind;
  in.reason = reason;
  in.length = length;
  in.request_id = request_id;
  quanta_wire_reply reply{};
  reply.kind = QUANTA_WIRE_BAD_REQUEST;
  reply.request_id = request_id;
  quanta_wire_encode_reply(in.answer, &reply);
  in.answer_len = QUANTA_WIRE_REPLY_HEADER;
  return in;
}

FramedInput silent(RefusalReason reason, uint32_t length) {
  FramedInput in;
  in.kind = InputKind::kAnswer;
  in.reason = reason;
  in.length = length;
  return in;
}

}  // namespace

FramedInput WireFormat::frame_datagram(const unsigned char* data, uint32_t len) const {
  if (len == 0) return truncated_datagram(data, len);  // (memcached framing: a header and nothing)
  FramedInput in = frame(data, len);
  if (in.kind == InputKind::kNeedMore) return truncated_datagram(data, len);
  if (in.kind == InputKind::kRequest && in.length != len) return overlong_datagram(in);
  // One datagram is the whole exchange: a close is an answer like any other, and there is
  // nothing after it to throw away.
  if (in.kind == InputKind::kClose) in.kind = InputKind::kAnswer;
  in.length = len;
  in.discard = 0;
  return in;
}

FramedInput DefaultWireFormat::frame(const unsigned char* data, uint32_t len) const {
  const Frame f = frame_request(data, len, max_payload_bytes_, class_count_);
  switch (f.verdict) {
    case FrameVerdict::kNeedMore:
      return FramedInput{};
    case FrameVerdict::kBadMagic:
      // Nothing after it can be framed: its id is not known either.
      return bad_request(InputKind::kClose, RefusalReason::kBadMagic, 0, 0);
    case FrameVerdict::kTooLarge:
      // Reading past it would mean buffering more than the limit.
      return bad_request(InputKind::kClose, RefusalReason::kTooLarge, 0, f.header.request_id);
    case FrameVerdict::kBadClass:
      // Still framed: answer this one and go on.
      return bad_request(InputKind::kAnswer, RefusalReason::kBadClass, f.bytes, f.header.request_id);
    case FrameVerdict::kRequest:
      break;
  }
  FramedInput in;
  in.kind = InputKind::kRequest;
  in.length = f.bytes;
  in.class_index = f.header.class_index;
  in.request_id = f.header.request_id;
  in.payload_offset = QUANTA_WIRE_REQUEST_HEADER;
  in.payload_len = f.header.payload_len;
  return in;
}

FramedInput DefaultWireFormat::truncated_datagram(const unsigned char* data, uint32_t len) const {
  // Shorter than a header: its id is not known; else the header's length says more.
  if (len < QUANTA_WIRE_REQUEST_HEADER) return bad_request(InputKind::kAnswer, RefusalReason::kTruncated, len, 0);
  return bad_request(InputKind::kAnswer, RefusalReason::kLengthMismatch, len, quanta_wire_get64(data + 8));
}

FramedInput DefaultWireFormat::overlong_datagram(const FramedInput& first) const {
  return bad_request(InputKind::kAnswer, RefusalReason::kLengthMismatch, first.length, first.request_id);
}

uint32_t DefaultWireFormat::reply_prefix(const Request& done, unsigned char* out) const {
  quanta_wire_reply reply{};
  reply.kind = QUANTA_WIRE_OK;
  reply.request_id = done.cookie;
  reply.response_len = done.response_len;
  reply.value = done.value;
  reply.status = done.status;
  quanta_wire_encode_reply(out, &reply);
  return QUANTA_WIRE_REPLY_HEADER;
}

uint32_t DefaultWireFormat::overloaded(uint64_t request_id, unsigned char* out) const {
  quanta_wire_reply reply{};
  reply.kind = QUANTA_WIRE_OVERLOADED;
  reply.request_id = request_id;
  quanta_wire_encode_reply(out, &reply);
  return QUANTA_WIRE_REPLY_HEADER;
}

FramedInput AppWireFormat::frame(const unsigned char* data, uint32_t len) const {
  quanta_frame f{};
  f.max_request_bytes = max_request_bytes_;
  const int verdict = protocol_.frame_request(data, len, &f);
  FramedInput in;
  // The framer is the app's code: what it says is checked before the front end acts on it.
  const auto answer = [&](InputKind kind) {
    in.kind = kind;
    in.reason = RefusalReason::kProtocolRefused;
    in.answer_len = std::min(f.reply_len, QUANTA_FRAME_REPLY_CAPACITY);
    std::memcpy(in.answer, f.reply, in.answer_len);
  };
  switch (verdict) {
    case QUANTA_FRAME_NEED_MORE:
      // Waiting for more would buffer past the limit: the framer should have refused it.
      if (len >= max_request_bytes_) {
        in.kind = InputKind::kClose;
        in.reason = RefusalReason::kTooLarge;
      }
      return in;
    case QUANTA_FRAME_REQUEST:
      if (f.length == 0 || f.length > len || f.length > max_request_bytes_) {
        in.kind = InputKind::kClose;
        in.reason = RefusalReason::kTooLarge;
        return in;
      }
      if (f.class_index >= class_count_) {
        in.kind = InputKind::kAnswer;
        in.reason = RefusalReason::kBadClass;
        in.length = f.length;
        return in;
      }
      in.kind = InputKind::kRequest;
      in.length = f.length;
      in.class_index = f.class_index;
      in.payload_offset = 0;
      in.payload_len = f.length;
      in.frame_note = f.note;
      return in;
    case QUANTA_FRAME_REJECT:
      if (f.length == 0 || f.length > len) {
        // Skipping nothing (or more than there is) would never move on: close instead.
        answer(InputKind::kClose);
        return in;
      }
      answer(InputKind::kAnswer);
      in.length = f.length;
      in.discard = f.discard;
      return in;
    default:
      answer(InputKind::kClose);
      return in;
  }
}

FramedInput AppWireFormat::truncated_datagram(const unsigned char*, uint32_t len) const {
  // The protocol has no answer for half a request: count it and send nothing.
  return silent(RefusalReason::kTruncated, len);
}

FramedInput AppWireFormat::overlong_datagram(const FramedInput& first) const {
  return silent(RefusalReason::kLengthMismatch, first.length);
}

uint32_t AppWireFormat::overloaded(uint64_t, unsigned char* out) const {
  if (protocol_.overloaded_reply == nullptr) return 0;
  return std::min(protocol_.overloaded_reply(out, QUANTA_FRAME_REPLY_CAPACITY), QUANTA_FRAME_REPLY_CAPACITY);
}

void fill_request(Request& r, const FramedInput& in, const unsigned char* data, uint64_t id, Sink* sink,
                  uint64_t now_tsc) {
  r.id = id;
  r.cookie = in.request_id;
  r.class_index = in.class_index;
  r.flags = kRequestMeasured;
  r.sink = sink;
  r.payload_len = in.payload_len;
  r.frame_note = in.frame_note;  // records are reused: always written, 0 when the framer noted nothing
  if (r.payload_len > 0) std::memcpy(r.payload, data + in.payload_offset, r.payload_len);
  r.arrival_tsc = now_tsc;
}

}  // namespace quanta
