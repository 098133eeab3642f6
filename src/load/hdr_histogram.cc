#include "load/hdr_histogram.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace quanta {
namespace {

unsigned floor_log2(uint64_t v) { return 63u - static_cast<unsigned>(__builtin_clzll(v)); }

// The smallest m with 2^m >= v (v >= 1).
unsigned ceil_log2(uint64_t v) { return v <= 1 ? 0 : floor_log2(v - 1) + 1; }

}  // namespace

HdrHistogram::HdrHistogram(int64_t lowest_discernible, int64_t highest_trackable, int significant_digits)
    : lowest_discernible_(lowest_discernible),
      highest_trackable_(highest_trackable),
      significant_digits_(significant_digits) {
  if (lowest_discernible < 1 || significant_digits < 1 || significant_digits > 5 ||
      highest_trackable < 2 * lowest_discernible) {
    throw std::invalid_argument("HdrHistogram: needs 1 <= lowest, 2 * lowest <= highest and 1 to 5 digits");
  }
  unit_magnitude_ = floor_log2(static_cast<uint64_t>(lowest_discernible));
  // Bucket 0 must count every value below 2 * 10^digits (in units of the lowest) exactly,
  // so that each value above it is still known to `digits` significant digits.
  int64_t single_unit_limit = 2;
  for (int i = 0; i < significant_digits; ++i) single_unit_limit *= 10;
  const unsigned sub_bucket_count_magnitude = ceil_log2(static_cast<uint64_t>(single_unit_limit));
  if (unit_magnitude_ + sub_bucket_count_magnitude > 62) {
    throw std::invalid_argument("HdrHistogram: lowest value too large for that many digits");
  }
  sub_bucket_half_count_magnitude_ = sub_bucket_count_magnitude > 1 ? sub_bucket_count_magnitude - 1 : 0;
  sub_bucket_count_ = int64_t{1} << (sub_bucket_half_count_magnitude_ + 1);
  sub_bucket_half_count_ = sub_bucket_count_ / 2;
  sub_bucket_mask_ = (sub_bucket_count_ - 1) << unit_magnitude_;

  // One bucket per doubling until the highest value is covered; the counts array has one
  // half-bucket more than the buckets (bucket 0 stores both halves).
  int64_t smallest_untrackable = sub_bucket_count_ << unit_magnitude_;
  int64_t buckets = 1;
  while (smallest_untrackable <= highest_trackable) {
    if (smallest_untrackable > INT64_MAX / 2) {
      ++buckets;
      break;
    }
    smallest_untrackable <<= 1;
    ++buckets;
  }
  counts_.assign(static_cast<std::size_t>((buckets + 1) * sub_bucket_half_count_), 0);
}

unsigned HdrHistogram::bucket_of(int64_t value) const {
  // The power of two just above the value (at least bucket 0's span), less bucket 0's bits.
  const unsigned pow2_ceiling = 64u - static_cast<unsigned>(__builtin_clzll(static_cast<uint64_t>(value | sub_bucket_mask_)));
  return pow2_ceiling - unit_magnitude_ - (sub_bucket_half_count_magnitude_ + 1);
}

int64_t HdrHistogram::sub_bucket_of(int64_t value, unsigned bucket) const {
  return value >> (bucket + unit_magnitude_);
}

std::size_t HdrHistogram::index_of(int64_t value) const {
  const unsigned bucket = bucket_of(value);
  const int64_t sub_bucket = sub_bucket_of(value, bucket);
  // Above bucket 0 only the upper half of each bucket's sub-buckets is stored.
  return static_cast<std::size_t>((static_cast<int64_t>(bucket + 1) << sub_bucket_half_count_magnitude_) +
                                  (sub_bucket - sub_bucket_half_count_));
}

int64_t HdrHistogram::value_at_index(std::size_t index) const {
  int64_t bucket = static_cast<int64_t>(index >> sub_bucket_half_count_magnitude_) - 1;
  int64_t sub_bucket = static_cast<int64_t>(index & static_cast<std::size_t>(sub_bucket_half_count_ - 1)) +
                       sub_bucket_half_count_;
  if (bucket < 0) {  // bucket 0's lower half
    sub_bucket -= sub_bucket_half_count_;
    bucket = 0;
  }
  return sub_bucket << (bucket + unit_magnitude_);
}

int64_t HdrHistogram::lowest_equivalent(int64_t value) const {
  const unsigned bucket = bucket_of(value);
  return sub_bucket_of(value, bucket) << (bucket + unit_magnitude_);
}

int64_t HdrHistogram::equivalent_range(int64_t value) const {
  unsigned bucket = bucket_of(value);
  // A value at the very top of a bucket's sub-buckets belongs to the next bucket's width.
  if (sub_bucket_of(value, bucket) >= sub_bucket_count_) ++bucket;
  return int64_t{1} << (unit_magnitude_ + bucket);
}

int64_t HdrHistogram::highest_equivalent(int64_t value) const {
  return lowest_equivalent(value) + equivalent_range(value) - 1;
}

void HdrHistogram::record(int64_t value, int64_t count) {
  value = std::max<int64_t>(value, 0);
  if (value > highest_trackable_) {
    clamped_ += count;
    value = highest_trackable_;
  }
  counts_[index_of(value)] += count;
  total_count_ += count;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
}

void HdrHistogram::clear() {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_count_ = clamped_ = max_ = 0;
  min_ = INT64_MAX;
}

int64_t HdrHistogram::value_at_percentile(double percentile) const {
  if (total_count_ == 0) return 0;
  const double p = std::clamp(percentile, 0.0, 100.0);
  // Rounded up, as HdrHistogram's Java reference (and stats/histogram.h) rank.
  const auto target =
      std::max<int64_t>(1, static_cast<int64_t>(std::ceil(p / 100.0 * static_cast<double>(total_count_))));
  int64_t running = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    running += counts_[i];
    if (running >= target) {
      const int64_t v = value_at_index(i);
      return p > 0 ? highest_equivalent(v) : lowest_equivalent(v);
    }
  }
  return max_;
}

}  // namespace quanta
