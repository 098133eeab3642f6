// Bucket arithmetic shared by the histograms (histogram.h, live_histogram.h): values below
// 2^(SubBits+1) have a bucket each; above, every power of two is cut into 2^SubBits equal
// buckets, so a value's bucket is within 1/2^SubBits of it. Pure functions of the index.
#pragma once

#include <cstddef>
#include <cstdint>

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

}  // namespace quanta
