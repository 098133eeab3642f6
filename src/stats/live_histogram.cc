#include "stats/live_histogram.h"
#include "stats/log_linear_buckets.h"


namespace quanta {
namespace {

using Buckets = LogLinearBuckets<7>;  // 128 sub-buckets per power of two above 256 (values below are exact)

}  // namespace

std::size_t LiveHistogram::bucket_of(uint64_t value) { return Buckets::of(value); }

uint64_t LiveHistogram::bucket_low(std::size_t index) { return Buckets::low(index); }

uint64_t LiveHistogram::bucket_width(std::size_t index) { return Buckets::width(index); }

std::size_t LiveHistogram::bucket_count() { return bucket_of(kMaxValue) + 1; }

LiveHistogram::LiveHistogram() : counts_(new std::atomic<uint64_t>[bucket_count()]) {
  for (std::size_t i = 0; i < bucket_count(); ++i) counts_[i].store(0, std::memory_order_relaxed);
}

void LiveHistogram::add_counts_to(std::vector<uint64_t>& sum) const {
  sum.resize(bucket_count(), 0);
  for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += counts_[i].load(std::memory_order_relaxed);
}

uint64_t count_of(const std::vector<uint64_t>& counts) {
  uint64_t n = 0;
  for (uint64_t c : counts) n += c;
  return n;
}

double percentile_of(const std::vector<uint64_t>& counts, double percentile) {
  const uint64_t total = count_of(counts);
  if (total == 0) return 0;
  const std::size_t i = bucket_at_percentile(counts, total, percentile);
  if (i == counts.size()) return static_cast<double>(LiveHistogram::bucket_low(counts.size() - 1));
  return static_cast<double>(LiveHistogram::bucket_low(i)) + static_cast<double>(LiveHistogram::bucket_width(i) - 1) / 2.0;
}

}  // namespace quanta
