// Host stalls as one runtime thread sees them. On a cloud VM the host takes a vCPU away
// for microseconds to milliseconds, several times a second; a thread that spins and reads
// the cycle counter between short steps of its own notices each time as a gap between two
// reads that its own code cannot explain. The thread calls observe() with the two reads;
// a gap over the threshold is kept as an interval. Preallocated, owned by one thread: no
// allocation, lock or system call on the path that observes.
//
// What it cannot see: a stall shorter than the threshold, and a stall while the thread runs
// code that reads no clock between the two reads it passes (a request's handler, a wait the
// thread explains itself and does not pass as a gap). Those stalls go uncounted here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace quanta {

struct StallInterval {
  uint64_t start_tsc;
  uint64_t end_tsc;
};

class StallLog {
 public:
  static constexpr std::size_t kDefaultCapacity = 4096;

  StallLog(uint64_t threshold_cycles, std::size_t capacity = kDefaultCapacity) : threshold_(threshold_cycles) {
    intervals_.reserve(capacity);
  }

  // `last` and `now`: two consecutive clock reads of the thread with nothing long of its
  // own in between.
  void observe(uint64_t last, uint64_t now) {
    if (now > last && now - last > threshold_) add(last, now);
  }

  uint64_t count() const { return count_; }
  uint64_t total_cycles() const { return total_cycles_; }
  uint64_t largest_cycles() const { return largest_cycles_; }
  uint64_t threshold_cycles() const { return threshold_; }
  // The first intervals (as many as the capacity); the totals above count them all.
  const std::vector<StallInterval>& intervals() const { return intervals_; }

 private:
  void add(uint64_t start, uint64_t end) {
    const uint64_t length = end - start;
    ++count_;
    total_cycles_ += length;
    if (length > largest_cycles_) largest_cycles_ = length;
    if (intervals_.size() < intervals_.capacity()) intervals_.push_back({start, end});
  }

  uint64_t threshold_;
  uint64_t count_ = 0;
  uint64_t total_cycles_ = 0;
  uint64_t largest_cycles_ = 0;
  std::vector<StallInterval> intervals_;
};

// What a report says about one thread's stalls.
struct StallSummary {
  std::string thread;        // "dispatcher", "worker 0", ...
  int cpu = -1;
  uint64_t count = 0;
  double total_ns = 0;
  double largest_ns = 0;

  // The part of a run of `elapsed_s` the thread lost (0 for a run of no length).
  double share_of(double elapsed_s) const { return elapsed_s > 0 ? total_ns / (elapsed_s * 1e9) : 0.0; }
};

}  // namespace quanta
