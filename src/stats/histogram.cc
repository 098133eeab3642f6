#include "stats/histogram.h"
#include "stats/log_linear_buckets.h"

#include <algorithm>

namespace quanta {
namespace {

using Buckets = LogLinearBuckets<10>;  // 1024 sub-buckets per power of two above 2048 (values below are exact)

}  // namespace

std::size_t Histogram::bucket_of(uint64_t value) { return Buckets::of(value); }

uint64_t Histogram::bucket_low(std::size_t index) { return Buckets::low(index); }

uint64_t Histogram::bucket_width(std::size_t index) { return Buckets::width(index); }

std::size_t Histogram::bucket_count() { return bucket_of(kMaxValue) + 1; }

Histogram::Histogram() : counts_(bucket_count(), 0) {}

void Histogram::record(uint64_t value) {
  ++count_;
  sum_ += static_cast<double>(value);
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  if (value > kMaxValue) {
    ++overflow_;
    value = kMaxValue;
  }
  ++counts_[bucket_of(value)];
}

void Histogram::merge(const Histogram& other) {
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  overflow_ += other.overflow_;
}

void Histogram::remove(const Histogram& part, uint64_t min_left, uint64_t max_left) {
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] -= part.counts_[i];
  count_ -= part.count_;
  // Exact: the values are integers, and sums below 2^53 are exact in a double.
  sum_ -= part.sum_;
  overflow_ -= part.overflow_;
  min_ = count_ > 0 ? min_left : UINT64_MAX;
  max_ = count_ > 0 ? max_left : 0;
}

void Histogram::clear() { *this = Histogram(); }

uint64_t Histogram::value_at_percentile(double percentile) const {
  if (count_ == 0) return 0;
  const std::size_t i = bucket_at_percentile(counts_, count_, percentile);
  if (i == counts_.size()) return max_;
  const uint64_t middle = bucket_low(i) + bucket_width(i) / 2;
  return std::clamp(middle, min(), max_);
}

uint64_t Histogram::count_above(uint64_t value) const {
  if (value >= kMaxValue) return overflow_;
  uint64_t above = 0;
  for (std::size_t i = bucket_of(value) + 1; i < counts_.size(); ++i) above += counts_[i];
  return above;
}

}  // namespace quanta
