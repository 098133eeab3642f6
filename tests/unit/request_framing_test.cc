// The front ends' one parser: each verdict, on whole, partial and extra bytes.
#include "net/request_framing.h"

#include <gtest/gtest.h>

#include <vector>

namespace quanta {
namespace {

std::vector<unsigned char> request_bytes(uint16_t class_index, uint32_t payload_len, uint64_t id) {
  std::vector<unsigned char> out(QUANTA_WIRE_REQUEST_HEADER + payload_len, 0xab);
  const quanta_wire_request r{class_index, payload_len, id};
  quanta_wire_encode_request(out.data(), &r);
  return out;
}

Frame frame(const std::vector<unsigned char>& bytes, uint32_t len) { return frame_request(bytes.data(), len, 100, 2); }

TEST(RequestFraming, AWholeRequestIsFramedWithItsSize) {
  const auto bytes = request_bytes(1, 10, 77);
  const Frame f = frame(bytes, static_cast<uint32_t>(bytes.size()));
  EXPECT_EQ(f.verdict, FrameVerdict::kRequest);
  EXPECT_EQ(f.bytes, 26u);
  EXPECT_EQ(f.header.request_id, 77u);
}

TEST(RequestFraming, EveryPrefixNeedsMore) {
  const auto bytes = request_bytes(0, 10, 1);
  for (uint32_t len = 0; len < bytes.size(); ++len) EXPECT_EQ(frame(bytes, len).verdict, FrameVerdict::kNeedMore) << len;
}

TEST(RequestFraming, BytesAfterTheRequestAreLeftForTheNext) {
  auto bytes = request_bytes(0, 4, 1);
  const auto next = request_bytes(0, 0, 2);
  bytes.insert(bytes.end(), next.begin(), next.end());
  EXPECT_EQ(frame(bytes, static_cast<uint32_t>(bytes.size())).bytes, 20u);
}

TEST(RequestFraming, WrongMagicTooLargeAndUnknownClassAreToldApart) {
  auto garbage = request_bytes(0, 0, 1);
  garbage[0] ^= 0xff;
  EXPECT_EQ(frame(garbage, 16).verdict, FrameVerdict::kBadMagic);
  // Too large is known from the header alone: the payload is never waited for.
  EXPECT_EQ(frame(request_bytes(0, 101, 1), 16).verdict, FrameVerdict::kTooLarge);
  EXPECT_EQ(frame(request_bytes(0, 100, 1), 116).verdict, FrameVerdict::kRequest);
  const Frame bad_class = frame(request_bytes(2, 3, 9), 19);
  EXPECT_EQ(bad_class.verdict, FrameVerdict::kBadClass);
  EXPECT_EQ(bad_class.bytes, 19u);  // still framed: the stream can go on
}

TEST(RequestFraming, AHugeAnnouncedPayloadDoesNotOverflow) {
  EXPECT_EQ(frame(request_bytes(0, 0, 1), 16).verdict, FrameVerdict::kRequest);
  auto huge = request_bytes(0, 0, 1);
  quanta_wire_put32(huge.data() + 4, UINT32_MAX - 15);  // header + payload: exactly 4 GiB
  EXPECT_EQ(frame_request(huge.data(), 16, UINT32_MAX, 1).verdict, FrameVerdict::kNeedMore);
  quanta_wire_put32(huge.data() + 4, UINT32_MAX);
  EXPECT_EQ(frame_request(huge.data(), 16, UINT32_MAX, 1).verdict, FrameVerdict::kNeedMore);
}

}  // namespace
}  // namespace quanta
