// libFuzzer target for the front ends' framing (src/net/request_framing.h): arbitrary
// bytes as a TCP stream, framed the way the TCP front end frames its read buffer, once
// whole and once arriving in pieces whose sizes come from the input. Checks that every
// verdict keeps its promises (a request is within the buffer and the limits; "need more"
// really lacks bytes) and that how the stream was cut changes nothing.
//
// CI runs it for a fixed number of inputs (ctest: fuzz.request_framing). For longer:
//   build/bin/quanta-fuzz-request-framing -max_total_time=600 corpus/
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "net/request_framing.h"

namespace {

struct Outcome {
  quanta::FrameVerdict verdict;
  uint64_t request_id;
  uint32_t bytes;
  bool operator==(const Outcome&) const = default;
};

void check(bool ok) {
  if (!ok) std::abort();
}

// Frames `stream` arriving in pieces of the given sizes (cycled; empty: all at once) into a
// buffer of one header + the limit, as the TCP front end does; stops at the first verdict
// that closes a connection.
std::vector<Outcome> frame_stream(const std::vector<unsigned char>& stream, const std::vector<uint32_t>& pieces,
                                  uint32_t max_payload, uint32_t class_count) {
  std::vector<Outcome> outcomes;
  std::vector<unsigned char> buffer(QUANTA_WIRE_REQUEST_HEADER + max_payload);
  uint32_t held = 0;
  std::size_t taken = 0;
  std::size_t piece = 0;
  for (;;) {
    const quanta::Frame f = quanta::frame_request(buffer.data(), held, max_payload, class_count);
    if (f.verdict == quanta::FrameVerdict::kNeedMore) {
      check(held < QUANTA_WIRE_REQUEST_HEADER || held < QUANTA_WIRE_REQUEST_HEADER + f.header.payload_len);
      // The buffer always has room for the rest of a request within the limit.
      check(held < buffer.size());
      if (taken == stream.size()) return outcomes;
      std::size_t n = pieces.empty() ? stream.size() - taken : pieces[piece++ % pieces.size()];
      if (n > stream.size() - taken) n = stream.size() - taken;
      if (n > buffer.size() - held) n = buffer.size() - held;
      for (std::size_t i = 0; i < n; ++i) buffer[held + i] = stream[taken + i];
      held += static_cast<uint32_t>(n);
      taken += n;
      continue;
    }
    outcomes.push_back({f.verdict, f.header.request_id, f.bytes});
    if (f.verdict == quanta::FrameVerdict::kBadMagic || f.verdict == quanta::FrameVerdict::kTooLarge) return outcomes;
    check(f.bytes >= QUANTA_WIRE_REQUEST_HEADER && f.bytes <= held);
    check(f.bytes == QUANTA_WIRE_REQUEST_HEADER + f.header.payload_len && f.header.payload_len <= max_payload);
    check((f.verdict == quanta::FrameVerdict::kRequest) == (f.header.class_index < class_count));
    for (uint32_t i = f.bytes; i < held; ++i) buffer[i - f.bytes] = buffer[i];
    held -= f.bytes;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  const uint32_t max_payload = data[0];             // small limits reach every verdict quickly
  const uint32_t class_count = 1 + data[1] % 4;
  std::vector<uint32_t> pieces;
  for (uint32_t i = 0; i < data[2] % 8; ++i) pieces.push_back(1 + (data[3] >> i) % 23);
  const std::vector<unsigned char> stream(data + 4, data + size);
  const std::vector<Outcome> whole = frame_stream(stream, {}, max_payload, class_count);
  if (!pieces.empty()) check(frame_stream(stream, pieces, max_payload, class_count) == whole);
  return 0;
}
