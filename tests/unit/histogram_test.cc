#include "stats/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "policy/rng.h"

namespace quanta {
namespace {

// The exact percentile by the same rank rule the histogram documents.
uint64_t exact_percentile(std::vector<uint64_t> sorted, double p) {
  const auto rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(p / 100.0 * sorted.size())));
  return sorted[rank - 1];
}

TEST(Histogram, BucketsCoverTheRangeContiguously) {
  for (std::size_t i = 0; i + 1 < Histogram::bucket_count(); ++i) {
    ASSERT_EQ(Histogram::bucket_low(i) + Histogram::bucket_width(i), Histogram::bucket_low(i + 1)) << i;
  }
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{2047}, uint64_t{2048}, uint64_t{2049}, uint64_t{123456789}, Histogram::kMaxValue}) {
    const std::size_t b = Histogram::bucket_of(v);
    EXPECT_LE(Histogram::bucket_low(b), v);
    EXPECT_LT(v, Histogram::bucket_low(b) + Histogram::bucket_width(b));
  }
}

TEST(Histogram, PercentilesMatchAnExactSortToThreeDigits) {
  Rng rng(7);
  Histogram h;
  std::vector<uint64_t> values;
  for (int i = 0; i < 200'000; ++i) {
    // Log-uniform over 1 ns .. 10 s: every bucket size is exercised.
    const auto v = static_cast<uint64_t>(std::exp(rng.unit_open_zero() * std::log(1e10)));
    values.push_back(v);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  for (double p : {0.1, 1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    const double exact = static_cast<double>(exact_percentile(values, p));
    const double got = static_cast<double>(h.value_at_percentile(p));
    EXPECT_LE(std::abs(got - exact), exact / 1000.0 + 1) << "p" << p << " exact " << exact << " got " << got;
  }
  EXPECT_EQ(h.count(), values.size());
  EXPECT_EQ(h.max(), values.back());
  EXPECT_EQ(h.min(), values.front());
}

TEST(Histogram, CountsAboveAValue) {
  Histogram h;
  for (uint64_t v = 1; v <= 10000; ++v) h.record(v);
  EXPECT_EQ(h.count_above(10000), 0u);
  EXPECT_EQ(h.count_above(0), 10000u);
  EXPECT_EQ(h.count_above(1000), 9000u);  // exact below 2048
  // Above 2048 a bucket is counted whole once its low end is past the value.
  EXPECT_NEAR(static_cast<double>(h.count_above(5000)), 5000.0, 5000.0 / 1024 + 1);
}

TEST(Histogram, MergeEqualsRecordingEverythingInOne) {
  Histogram a, b, all;
  for (uint64_t v = 1; v < 100000; v += 7) {
    (v % 2 ? a : b).record(v);
    all.record(v);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  for (double p : {50.0, 99.0, 99.9}) EXPECT_EQ(a.value_at_percentile(p), all.value_at_percentile(p));
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
}

TEST(Histogram, ClampsValuesAboveTheRangeButKeepsTheMax) {
  Histogram h;
  h.record(Histogram::kMaxValue * 3);
  EXPECT_EQ(h.overflow(), 1u);
  EXPECT_EQ(h.max(), Histogram::kMaxValue * 3);
  EXPECT_EQ(h.value_at_percentile(50), h.max());
  EXPECT_EQ(Histogram().value_at_percentile(99), 0u);
}

}  // namespace
}  // namespace quanta
