// The HdrHistogram-compatible histogram and its interval-log encoding: the counts layout at
// its edges, percentiles against stats/histogram.h (the reports' histogram, the same
// buckets), and the encoding against bytes the `hdrh` Python package (0.10.8) produced for
// the same recorded values.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <string>

#include "load/hdr_histogram.h"
#include "load/hdr_histogram_log.h"
#include "stats/histogram.h"

namespace quanta {
namespace {

constexpr int64_t kHourNs = 3'600'000'000'000;

HdrHistogram latency_histogram() { return HdrHistogram(1, kHourNs, 3); }

std::string hex(const std::vector<uint8_t>& bytes) {
  std::string out;
  char two[3];
  for (uint8_t b : bytes) {
    std::snprintf(two, sizeof two, "%02x", b);
    out += two;
  }
  return out;
}

std::vector<uint8_t> base64_decode(const std::string& text) {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<uint8_t> out;
  uint32_t bits = 0;
  int held = 0;
  for (char c : text) {
    if (c == '=') break;
    bits = (bits << 6) | static_cast<uint32_t>(alphabet.find(c));
    held += 6;
    if (held >= 8) {
      held -= 8;
      out.push_back(static_cast<uint8_t>(bits >> held));
    }
  }
  return out;
}

TEST(HdrHistogram, LayoutMatchesHdrHistogramsForOneNsToOneHour) {
  const HdrHistogram h = latency_histogram();
  EXPECT_EQ(h.counts_length(), 33792u);  // hdrh: HdrHistogram(1, 3600e9, 3).counts_len
  // Bucket 0: every value below 2048 has its own index.
  EXPECT_EQ(h.index_of(0), 0u);
  EXPECT_EQ(h.index_of(1), 1u);
  EXPECT_EQ(h.index_of(2047), 2047u);
  EXPECT_EQ(h.equivalent_range(2047), 1);
  // Bucket 1: 2048..4095 in steps of 2, stored from index 2048 on.
  EXPECT_EQ(h.index_of(2048), 2048u);
  EXPECT_EQ(h.index_of(2049), 2048u);
  EXPECT_EQ(h.index_of(2050), 2049u);
  EXPECT_EQ(h.index_of(4095), 3071u);
  EXPECT_EQ(h.equivalent_range(2048), 2);
  EXPECT_EQ(h.highest_equivalent(2048), 2049);
  // Bucket 2 starts at 4096 in steps of 4.
  EXPECT_EQ(h.index_of(4096), 3072u);
  EXPECT_EQ(h.lowest_equivalent(4099), 4096);
  EXPECT_EQ(h.equivalent_range(4096), 4);
  EXPECT_LT(h.index_of(kHourNs), h.counts_length());
  for (int64_t v : {int64_t{0}, int64_t{2047}, int64_t{2048}, int64_t{4095}, int64_t{4096}, int64_t{123456789},
                    kHourNs}) {
    EXPECT_EQ(h.value_at_index(h.index_of(v)), h.lowest_equivalent(v)) << v;
    EXPECT_LE(h.lowest_equivalent(v), v);
    EXPECT_GE(h.highest_equivalent(v), v);
    EXPECT_EQ(h.index_of(h.highest_equivalent(v)), h.index_of(v)) << v;
    EXPECT_EQ(h.index_of(h.highest_equivalent(v) + 1), h.index_of(v) + 1) << v;
  }
}

TEST(HdrHistogram, OtherSettingsFollowTheSameRules) {
  // Lowest 1000 (unit 512), 2 digits: bucket 0 has 256 sub-buckets of width 512.
  const HdrHistogram h(1000, 1'000'000'000, 2);
  EXPECT_EQ(h.index_of(511), 0u);
  EXPECT_EQ(h.index_of(512), 1u);
  EXPECT_EQ(h.equivalent_range(1000), 512);
  EXPECT_EQ(h.lowest_equivalent(256 * 512), 256 * 512);
  EXPECT_EQ(h.equivalent_range(256 * 512), 1024);
  EXPECT_THROW(HdrHistogram(0, 100, 3), std::invalid_argument);
  EXPECT_THROW(HdrHistogram(1, 1, 3), std::invalid_argument);
  EXPECT_THROW(HdrHistogram(1, 100, 6), std::invalid_argument);
}

TEST(HdrHistogram, CountsMinMaxAndClamping) {
  HdrHistogram h = latency_histogram();
  EXPECT_EQ(h.value_at_percentile(50), 0);
  h.record(5);
  h.record(5000, 3);
  h.record(2 * kHourNs);
  h.record(-7);
  EXPECT_EQ(h.total_count(), 6);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), kHourNs);
  EXPECT_EQ(h.clamped(), 1);
  EXPECT_EQ(h.count_at_index(h.index_of(5000)), 3);
  EXPECT_EQ(h.value_at_percentile(0), 0);
  EXPECT_EQ(h.value_at_percentile(50), h.highest_equivalent(5000));
  EXPECT_EQ(h.value_at_percentile(100), h.highest_equivalent(kHourNs));
  h.clear();
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.max(), 0);
}

TEST(HdrHistogram, PercentilesAgreeWithTheReportsHistogramToItsPrecision) {
  HdrHistogram hdr = latency_histogram();
  Histogram ours;
  uint64_t x = 12345;
  for (int i = 0; i < 20000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    // Latency-like: mostly tens of us, a tail out to ~0.5 s.
    const uint64_t v = (x >> 40) % 50'000 + ((i % 97 == 0) ? (x >> 35) % 500'000'000 : 0);
    hdr.record(static_cast<int64_t>(v));
    ours.record(v);
  }
  EXPECT_EQ(static_cast<uint64_t>(hdr.total_count()), ours.count());
  for (double p : {0.1, 1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    const int64_t hdr_value = hdr.value_at_percentile(p);
    const auto our_value = static_cast<int64_t>(ours.value_at_percentile(p));
    // Same rank rule and bucket layout: our value (a bucket's middle) lies in HdrHistogram's
    // bucket, so they differ by less than one part in 1024.
    EXPECT_GE(our_value, hdr.lowest_equivalent(hdr_value)) << p;
    EXPECT_LE(our_value, hdr_value) << p;
    EXPECT_LE(static_cast<double>(hdr_value - our_value), static_cast<double>(hdr_value) / 1024.0) << p;
  }
}

TEST(HdrHistogramLog, EncodingIsTheBytesHdrhWrites) {
  HdrHistogram h = latency_histogram();
  for (auto [v, c] : {std::pair<int64_t, int64_t>{0, 1}, {1, 2}, {2047, 1}, {2048, 1}, {2049, 1}, {4095, 3},
                      {123456, 1}, {1000, 300}, {123456789, 1}}) {
    h.record(v, c);
  }
  // hdrh: zlib.decompress(base64.b64decode(h.encode())[8:]).hex() for the same values.
  EXPECT_EQ(hex(hdr_encode_uncompressed(h)),
            "1c84931300000014000000000000000300000000000000010000034630b8a0003ff00000000000000204cb0fd804ab100204fb0f0"
            "6914e02a19f0102");
}

TEST(HdrHistogramLog, LargeCountsTakeNineBytesAndZeroRunsOne) {
  HdrHistogram h = latency_histogram();
  h.record(3, int64_t{1} << 62);
  h.record(4);
  const std::vector<uint8_t> plain = hdr_encode_uncompressed(h);
  // hdrh's payload for the same: a run of 3 zeros (-3 -> 5), 2^62 in 9 bytes, then 1.
  EXPECT_EQ(hex({plain.begin() + 40, plain.end()}), "0580808080808080808002");
  EXPECT_EQ(hex({plain.begin() + 4, plain.begin() + 8}), "0000000b");  // payload length
}

TEST(HdrHistogramLog, AnEmptyHistogramIsAHeaderAlone) {
  const std::vector<uint8_t> plain = hdr_encode_uncompressed(latency_histogram());
  ASSERT_EQ(plain.size(), 40u);
  EXPECT_EQ(hex({plain.begin(), plain.begin() + 8}), "1c84931300000000");
}

TEST(HdrHistogramLog, CompressedFormInflatesToTheEncoding) {
  HdrHistogram h = latency_histogram();
  for (int64_t v = 1; v < 5'000'000; v = v * 3 + 1) h.record(v);
  const std::vector<uint8_t> wrapped = base64_decode(hdr_encode_compressed_base64(h));
  ASSERT_GT(wrapped.size(), 8u);
  EXPECT_EQ(hex({wrapped.begin(), wrapped.begin() + 4}), "1c849314");
  const uint32_t length = (uint32_t{wrapped[4]} << 24) | (uint32_t{wrapped[5]} << 16) | (uint32_t{wrapped[6]} << 8) |
                          wrapped[7];
  EXPECT_EQ(length, wrapped.size() - 8);
  const std::vector<uint8_t> expected = hdr_encode_uncompressed(h);
  std::vector<uint8_t> inflated(expected.size() + 16);
  uLongf inflated_bytes = inflated.size();
  ASSERT_EQ(uncompress(inflated.data(), &inflated_bytes, wrapped.data() + 8, length), Z_OK);
  inflated.resize(inflated_bytes);
  EXPECT_EQ(inflated, expected);
}

TEST(HdrHistogramLog, Base64MatchesRfc4648) {
  auto b64 = [](const std::string& s) { return base64_encode(std::vector<uint8_t>(s.begin(), s.end())); };
  EXPECT_EQ(b64(""), "");
  EXPECT_EQ(b64("f"), "Zg==");
  EXPECT_EQ(b64("fo"), "Zm8=");
  EXPECT_EQ(b64("foo"), "Zm9v");
  EXPECT_EQ(b64("foob"), "Zm9vYg==");
  EXPECT_EQ(b64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(b64("foobar"), "Zm9vYmFy");
}

TEST(HdrHistogramLog, WriterPutsTheHeaderBeforeTheIntervals) {
  HdrHistogram h = latency_histogram();
  h.record(2'500'000);
  HdrHistogramLogWriter log({"a comment"}, 1700000000.25, 1e6);
  log.interval(0, 1, h);
  const std::string& text = log.text();
  EXPECT_EQ(text.rfind("#[a comment]\n#[Histogram log format version 1.3]\n#[StartTime: 1700000000.250 (seconds "
                       "since epoch), 2023-11-14T22:13:20Z]\n#[BaseTime: 1700000000.250 (seconds since epoch)]\n"
                       "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n"
                       "0.000,1.000,2.500000,HISTF",
                       0),
            0u)
      << text;
}

}  // namespace
}  // namespace quanta
