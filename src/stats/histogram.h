// Log-linear latency histogram in the scheme of HdrHistogram: values below 2048 are
// counted exactly; above, each power-of-two range is split into 1024 equal sub-buckets,
// so any recorded value is known to within 1/1024 (better than 3 significant digits).
// Range 0 .. kMaxValue (10 s in ns); larger values are clamped into the top bucket and
// counted as overflow (the exact maximum is still kept). Fixed size, no allocation after
// construction: recording is a shift, a subtract and an increment.
#pragma once

#include <cstdint>
#include <vector>

namespace quanta {

class Histogram {
 public:
  static constexpr uint64_t kMaxValue = 10'000'000'000ull;  // 10 s in ns

  Histogram();

  void record(uint64_t value);
  void merge(const Histogram& other);
  // Takes `part`'s values out again, where every value recorded in `part` was also
  // recorded here: what is left is as if only the others had been recorded. The minimum
  // and maximum of what is left cannot be derived from the two, so the caller gives them
  // (ignored when nothing is left).
  void remove(const Histogram& part, uint64_t min_left, uint64_t max_left);
  void clear();

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  uint64_t overflow() const { return overflow_; }

  // The value at or below which `percentile` percent of the recorded values lie (the
  // smallest recorded value v with count(<= v) >= ceil(p/100 * count)), reported as the
  // middle of its bucket and clipped to [min, max]. 0 when empty.
  uint64_t value_at_percentile(double percentile) const;

  // Recorded values above `value`, to bucket precision: buckets that start above it.
  uint64_t count_above(uint64_t value) const;

  // Bucket index of a value, and the value range a bucket covers (for tests).
  static std::size_t bucket_of(uint64_t value);
  static uint64_t bucket_low(std::size_t index);
  static uint64_t bucket_width(std::size_t index);
  static std::size_t bucket_count();

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  uint64_t overflow_ = 0;
  double sum_ = 0;  // exact mean, not a bucket estimate
};

}  // namespace quanta
