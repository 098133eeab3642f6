// Latency counts one thread writes while another reads them: a runtime thread records the
// sojourn of every request it finishes, and the run's sampler (runtime/run_sampler.h), on
// its own thread, takes the counts at each period's or interval's end and keeps the
// difference from the last time. Cumulative counts need no hand-over between writer and
// reader: no lock, no swap, no fence on the writer's side (a relaxed load and store of a
// counter only it writes). A request that finishes as the reader passes its bucket falls
// into the next period instead: the periods' sum stays exact.
//
// Log-linear buckets as in Histogram, coarser (128 per power of two, 1/128 precision) so
// that a reader goes through all of them in microseconds.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace quanta {

class LiveHistogram {
 public:
  static constexpr uint64_t kMaxValue = 10'000'000'000ull;  // 10 s in ns; larger values go to the top bucket

  LiveHistogram();

  // The writer's side (one thread only).
  void record(uint64_t value) {
    std::atomic<uint64_t>& c = counts_[bucket_of(value < kMaxValue ? value : kMaxValue)];
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  // The reader's side: adds the counts so far to `sum` (sized bucket_count()).
  void add_counts_to(std::vector<uint64_t>& sum) const;

  static std::size_t bucket_of(uint64_t value);
  static uint64_t bucket_low(std::size_t index);
  static uint64_t bucket_width(std::size_t index);
  static std::size_t bucket_count();

 private:
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;
};

// Summaries of a set of bucket counts (a difference of two readings, say).
uint64_t count_of(const std::vector<uint64_t>& counts);
// The value at or below which `percentile` percent of the counted values lie, as the
// middle of its bucket; 0 when nothing was counted.
double percentile_of(const std::vector<uint64_t>& counts, double percentile);

}  // namespace quanta
