// The counts a runtime thread publishes while it runs (stats/live_histogram.h): buckets
// within 1/128 of every value, percentiles of a set of counts, and differences of two
// readings that give exactly what was recorded in between.
#include "stats/live_histogram.h"

#include <gtest/gtest.h>

#include <thread>

namespace quanta {
namespace {

TEST(LiveHistogram, EveryValueFallsInABucketThatHoldsItWithin1Of128) {
  for (uint64_t v : {0ull, 1ull, 255ull, 256ull, 257ull, 1000ull, 123'456ull, 9'999'999'999ull}) {
    const std::size_t b = LiveHistogram::bucket_of(v);
    EXPECT_LE(LiveHistogram::bucket_low(b), v);
    EXPECT_LT(v, LiveHistogram::bucket_low(b) + LiveHistogram::bucket_width(b));
    EXPECT_LE(static_cast<double>(LiveHistogram::bucket_width(b)), std::max(1.0, static_cast<double>(v) / 128.0));
  }
  EXPECT_EQ(LiveHistogram::bucket_of(LiveHistogram::kMaxValue) + 1, LiveHistogram::bucket_count());
}

TEST(LiveHistogram, PercentilesOfCounts) {
  LiveHistogram h;
  for (uint64_t v = 1; v <= 100; ++v) h.record(v);
  std::vector<uint64_t> counts;
  h.add_counts_to(counts);
  EXPECT_EQ(count_of(counts), 100u);
  EXPECT_EQ(percentile_of(counts, 50), 50);  // exact below 256
  EXPECT_EQ(percentile_of(counts, 99), 99);
  EXPECT_EQ(percentile_of(counts, 100), 100);
  EXPECT_EQ(percentile_of(std::vector<uint64_t>(LiveHistogram::bucket_count(), 0), 99), 0);
  h.record(20'000'000'000ull);  // over 10 s: counted in the top bucket
  counts.clear();
  h.add_counts_to(counts);
  EXPECT_EQ(counts.back(), 1u);
}

TEST(LiveHistogram, ReadingsWhileAnotherThreadRecordsDifferToWhatItRecorded) {
  LiveHistogram h;
  constexpr uint64_t kValues = 200'000;
  std::thread writer([&] {
    for (uint64_t i = 0; i < kValues; ++i) h.record(i % 5000);
  });
  // Readings taken while it writes never go down, bucket by bucket.
  std::vector<uint64_t> last(LiveHistogram::bucket_count(), 0);
  for (int reading = 0; reading < 50; ++reading) {
    std::vector<uint64_t> now;
    h.add_counts_to(now);
    for (std::size_t i = 0; i < now.size(); ++i) ASSERT_GE(now[i], last[i]);
    last = now;
  }
  writer.join();
  std::vector<uint64_t> end;
  h.add_counts_to(end);
  EXPECT_EQ(count_of(end), kValues);
}

}  // namespace
}  // namespace quanta
