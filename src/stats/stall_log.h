// Host stalls as one runtime thread sees them. On a cloud VM the host takes a vCPU away
// for microseconds to milliseconds, several times a second; a thread that spins and reads
// the cycle counter between short steps of its own notices each time as a gap between two
// reads that its own code cannot explain. The thread calls observe() with the two reads;
// a gap over the threshold is kept as an interval. Preallocated, written by one thread: no
// allocation, lock or system call on the path that observes.
//
// Other threads read the log while it is written: a thread that finishes a request asks
// whether a stall of this thread's CPU falls in the request's window (touches()). The log
// keeps the latest `capacity` intervals in a ring; every field a reader loads is atomic,
// and an interval is published (release) before the count that makes it visible.
//
// What it cannot see: a stall shorter than the threshold, and a stall while the thread runs
// code that reads no clock between the two reads it passes (a request's handler, a wait the
// thread explains itself and does not pass as a gap). Those stalls go uncounted here.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
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

  // `capacity` is rounded up to a power of two.
  explicit StallLog(uint64_t threshold_cycles, std::size_t capacity = kDefaultCapacity)
      : threshold_(threshold_cycles),
        capacity_(std::bit_ceil(capacity < 1 ? std::size_t{1} : capacity)),
        ring_(std::make_unique<Slot[]>(capacity_)) {}

  // `last` and `now`: two consecutive clock reads of the thread with nothing long of its
  // own in between.
  void observe(uint64_t last, uint64_t now) {
    if (now > last && now - last > threshold_) add(last, now);
  }

  // A stall the thread inferred another way (a quantum that ended far past its deadline),
  // or one a simulation injects. Intervals come in time order; one that overlaps the
  // interval before it (the same stall, seen twice) extends that one.
  void add(uint64_t start, uint64_t end) {
    if (end <= start) return;
    const uint64_t n = count_.load(std::memory_order_relaxed);
    if (n > 0 && start <= last_end_) {
      if (end <= last_end_) return;
      Slot& previous = ring_[(n - 1) & (capacity_ - 1)];
      total_cycles_ += end - last_end_;
      last_end_ = end;
      previous.end.store(end, std::memory_order_release);
      const uint64_t merged = end - previous.start.load(std::memory_order_relaxed);
      if (merged > largest_cycles_) largest_cycles_ = merged;
      return;
    }
    last_end_ = end;
    const uint64_t length = end - start;
    total_cycles_ += length;
    if (length > largest_cycles_) largest_cycles_ = length;
    Slot& slot = ring_[n & (capacity_ - 1)];
    slot.start.store(start, std::memory_order_relaxed);
    slot.end.store(end, std::memory_order_relaxed);
    count_.store(n + 1, std::memory_order_release);
  }

  // Whether a logged stall overlaps [from, to] (ticks). Any thread, at any time: it sees
  // the stalls logged before the call (those published to it), newest first, and stops at
  // the first that ended before `from`. Only the latest `capacity` stalls are kept: a
  // window reaching further back than that many stalls is judged on those.
  bool touches(uint64_t from, uint64_t to) const {
    const uint64_t n = count_.load(std::memory_order_acquire);
    const uint64_t oldest = n > capacity_ ? n - capacity_ : 0;
    for (uint64_t i = n; i > oldest; --i) {
      const Slot& slot = ring_[(i - 1) & (capacity_ - 1)];
      if (slot.end.load(std::memory_order_acquire) < from) return false;
      if (slot.start.load(std::memory_order_relaxed) <= to) return true;
    }
    return false;
  }

  // Owner only (or after the owner stopped):
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  uint64_t total_cycles() const { return total_cycles_; }
  uint64_t largest_cycles() const { return largest_cycles_; }
  uint64_t threshold_cycles() const { return threshold_; }
  // The kept intervals (the latest `capacity`), oldest first; the totals above count them all.
  std::vector<StallInterval> intervals() const {
    const uint64_t n = count();
    std::vector<StallInterval> out;
    for (uint64_t i = n > capacity_ ? n - capacity_ : 0; i < n; ++i) {
      const Slot& slot = ring_[i & (capacity_ - 1)];
      out.push_back({slot.start.load(std::memory_order_relaxed), slot.end.load(std::memory_order_relaxed)});
    }
    return out;
  }

 private:
  struct Slot {
    std::atomic<uint64_t> start{0};
    std::atomic<uint64_t> end{0};
  };

  uint64_t threshold_;
  std::size_t capacity_;
  std::unique_ptr<Slot[]> ring_;
  std::atomic<uint64_t> count_{0};
  uint64_t last_end_ = 0;
  uint64_t total_cycles_ = 0;
  uint64_t largest_cycles_ = 0;
};

// The stall logs whose stalls can delay a request, and the rule that says whether one did.
// A request is touched when a stall of one of these CPUs falls between the start of the busy
// period it was served in and its finish: a stall leaves a backlog, and the requests that
// arrive after it ends but before the backlog drains wait behind it. The busy period starts
// with the arrival of the request that found its queue empty (docs/runtime.md, "Host
// stalls", says how this rule was chosen: the simulator with injected stalls).
class StallWatch {
 public:
  void watch(const StallLog* log) { logs_.push_back(log); }
  bool empty() const { return logs_.empty(); }
  // `arrival`, `busy_since` and `finish` in the logs' ticks; busy_since 0: not known, the
  // window starts at the arrival.
  bool touched(uint64_t arrival, uint64_t busy_since, uint64_t finish) const {
    const uint64_t from = busy_since != 0 && busy_since < arrival ? busy_since : arrival;
    for (const StallLog* log : logs_) {
      if (log->touches(from, finish)) return true;
    }
    return false;
  }

 private:
  std::vector<const StallLog*> logs_;
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
