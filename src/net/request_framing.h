// Where one default-protocol request (quanta/wire.h) ends in a run of bytes, and whether
// it may be served: the parser under DefaultWireFormat (wire_format.h), which both front
// ends use (a UDP datagram is a run that must hold exactly one
// request; a TCP connection's read buffer a run that may hold several, or part of one).
// Pure: no sockets, no state, so it is unit-tested and fuzzed on its own
// (tests/fuzz/request_framing_fuzz.cc).
#pragma once

#include <cstdint>

#include "quanta/wire.h"

namespace quanta {

enum class FrameVerdict {
  kNeedMore,  // fewer bytes than a header, or than the request the header announces
  kRequest,   // a whole request of a class the app serves: `bytes` long
  kBadMagic,  // not this protocol: nothing after it can be framed
  kTooLarge,  // announces a payload over the limit: it will not be buffered
  kBadClass,  // a whole request (`bytes` long) of a class the app does not serve
};

struct Frame {
  FrameVerdict verdict = FrameVerdict::kNeedMore;
  quanta_wire_request header{};  // valid unless kNeedMore before a header, or kBadMagic
  uint32_t bytes = 0;            // the request's size, header included (kRequest, kBadClass)
};

inline Frame frame_request(const unsigned char* data, uint32_t len, uint32_t max_payload_bytes, uint32_t class_count) {
  Frame f;
  const int decoded = quanta_wire_decode_request(data, len, &f.header);
  if (decoded == 0) return f;
  if (decoded < 0) {
    f.verdict = FrameVerdict::kBadMagic;
    return f;
  }
  if (f.header.payload_len > max_payload_bytes) {
    f.verdict = FrameVerdict::kTooLarge;
    return f;
  }
  // In 64 bits: a header announcing nearly 4 GiB under a limit as large must not wrap.
  const uint64_t total = uint64_t{QUANTA_WIRE_REQUEST_HEADER} + f.header.payload_len;
  if (len < total) return f;
  f.bytes = static_cast<uint32_t>(total);  // at most len
  f.verdict = f.header.class_index < class_count ? FrameVerdict::kRequest : FrameVerdict::kBadClass;
  return f;
}

}  // namespace quanta
