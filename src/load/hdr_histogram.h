// A histogram whose counts array is laid out as HdrHistogram lays out its own, index for
// index, so that the array can be written in HdrHistogram's encoding and read back by its
// libraries (hdr_histogram_log.h). stats/histogram.h is the one the reports use; this one
// exists for the interval log, where the layout has to be HdrHistogram's and not ours.
//
// The layout, for `significant_digits` d and lowest discernible value L: a run of
// 2^ceil(log2(2 * 10^d)) sub-buckets of width 2^floor(log2 L) ("bucket 0"), then buckets
// that each cover the next power of two with half as many sub-buckets of twice the width
// (their lower half would repeat the bucket below, so it is not stored). With L = 1 and
// d = 3 that is 2048 values counted exactly, then 1024 sub-buckets per power of two: any
// value is known to within 1/1024 of itself.
#pragma once

#include <cstdint>
#include <vector>

namespace quanta {

class HdrHistogram {
 public:
  // Throws std::invalid_argument unless 1 <= lowest, 2 * lowest <= highest, 1 <= digits <= 5.
  HdrHistogram(int64_t lowest_discernible, int64_t highest_trackable, int significant_digits);

  // Values above highest_trackable() are counted as highest_trackable() (and in clamped());
  // negative values as 0.
  void record(int64_t value, int64_t count = 1);
  void clear();

  int64_t total_count() const { return total_count_; }
  int64_t min() const { return total_count_ ? min_ : 0; }
  int64_t max() const { return max_; }
  int64_t clamped() const { return clamped_; }

  // HdrHistogram's percentile: the first index whose running count reaches
  // max(1, ceil(p / 100 * total)) (the rank rounded up, as the Java reference and our
  // reports do; the hdrh Python package rounds to nearest), reported as the highest value
  // that index covers (the lowest, for p = 0). 0 when empty.
  int64_t value_at_percentile(double percentile) const;

  // Values counted at the same index as `value` lie in [lowest_equivalent, highest_equivalent].
  int64_t lowest_equivalent(int64_t value) const;
  int64_t highest_equivalent(int64_t value) const;
  int64_t equivalent_range(int64_t value) const;

  // The counts array, as the encoding walks it.
  std::size_t counts_length() const { return counts_.size(); }
  std::size_t index_of(int64_t value) const;
  int64_t value_at_index(std::size_t index) const;
  int64_t count_at_index(std::size_t index) const { return counts_[index]; }

  int64_t lowest_discernible() const { return lowest_discernible_; }
  int64_t highest_trackable() const { return highest_trackable_; }
  int significant_digits() const { return significant_digits_; }

 private:
  unsigned bucket_of(int64_t value) const;
  int64_t sub_bucket_of(int64_t value, unsigned bucket) const;

  int64_t lowest_discernible_, highest_trackable_;
  int significant_digits_;
  unsigned unit_magnitude_;                 // log2 of bucket 0's sub-bucket width
  unsigned sub_bucket_half_count_magnitude_;
  int64_t sub_bucket_count_;                // sub-buckets in bucket 0 (a power of two)
  int64_t sub_bucket_half_count_;           // stored sub-buckets in each bucket above it
  int64_t sub_bucket_mask_;                 // values below it fall in bucket 0
  std::vector<int64_t> counts_;
  int64_t total_count_ = 0, min_ = INT64_MAX, max_ = 0, clamped_ = 0;
};

}  // namespace quanta
