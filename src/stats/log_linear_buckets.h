// Bucket arithmetic shared by the histograms (histogram.h, live_histogram.h): values below
// 2^(SubBits+1) have a bucket each; above, every power of two is cut into 2^SubBits equal
// buckets, so a value's bucket is within 1/2^SubBits of it. Pure functions of the index,
// and the rank walk both histograms answer percentiles with.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace quanta {

template <unsigned SubBits>
struct LogLinearBuckets {
  static constexpr uint64_t kSubBuckets = 1ull << SubBits;
  static constexpr uint64_t kLinearLimit = 2 * kSubBuckets;  // values below are exact

  static std::size_t of(uint64_t value) {
    if (value < kLinearLimit) return static_cast<std::size_t>(value);
    const unsigned shift = (63u - static_cast<unsigned>(__builtin_clzll(value))) - SubBits;  // >= 1 here
    const uint64_t sub = (value >> shift) - kSubBuckets;
    return static_cast<std::size_t>(kLinearLimit + (shift - 1) * kSubBuckets + sub);
  }
  static uint64_t low(std::size_t index) {
    if (index < kLinearLimit) return index;
    const uint64_t above = index - kLinearLimit;
    const unsigned shift = static_cast<unsigned>(above / kSubBuckets) + 1;
    return (kSubBuckets + above % kSubBuckets) << shift;
  }
  static uint64_t width(std::size_t index) {
    if (index < kLinearLimit) return 1;
    return 1ull << (static_cast<unsigned>((index - kLinearLimit) / kSubBuckets) + 1);
  }
};

// The bucket that holds the value at `percentile` (clamped to [0, 100]) of `total` counted
// values: the smallest index with at least ceil(p/100 * total) values (at least one) at or
// below it. counts.size() when the counts hold fewer than that (or total is 0); how a
// bucket is reported (its middle, clipped to the extremes seen) is the caller's.
inline std::size_t bucket_at_percentile(const std::vector<uint64_t>& counts, uint64_t total, double percentile) {
  const double p = std::clamp(percentile, 0.0, 100.0);
  const auto rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(total))));
  uint64_t seen = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    seen += counts[i];
    if (seen >= rank) return i;
  }
  return counts.size();
}

}  // namespace quanta
