// Host stalls as one runtime thread sees them. On a cloud VM the host takes a vCPU away
// for microseconds to milliseconds, several times a second; a thread that spins and reads
// the cycle counter between short steps of its own notices each time as a gap between two
// reads that its own code cannot explain. The thread calls observe() with the two reads;
// a gap over the threshold is kept as an interval. Preallocated, written by one thread: no
// allocation, lock or system call on the path that observes.
//
// Other threads read the log while it is written: a thread that finishes a request asks
// whether a stall of this thread's CPU, or the drain after it, falls in the request's life
// (touches()). The log keeps the latest `capacity` intervals in a ring; every field a
// reader loads is atomic, and an interval is published (release) before the count that
// makes it visible.
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
      note_length(end - previous.start.load(std::memory_order_relaxed));
      previous.end.store(end, std::memory_order_release);
      return;
    }
    last_end_ = end;
    const uint64_t length = end - start;
    total_cycles_ += length;
    note_length(length);
    Slot& slot = ring_[n & (capacity_ - 1)];
    slot.start.store(start, std::memory_order_relaxed);
    slot.end.store(end, std::memory_order_relaxed);
    count_.store(n + 1, std::memory_order_release);
  }

  // Whether a logged stall, or the drain after it, overlaps [from, to] (ticks). The drain
  // is `drain_factor` times the stall's length: the backlog the stall left behind, which
  // requests arriving after it still wait behind. Any thread, at any time: it sees the
  // stalls logged before the call (those published to it), newest first, and stops where
  // no older stall can reach `from`. Only the latest `capacity` stalls are kept.
  bool touches(uint64_t from, uint64_t to, double drain_factor) const {
    const uint64_t n = count_.load(std::memory_order_acquire);
    const uint64_t oldest = n > capacity_ ? n - capacity_ : 0;
    const auto longest_reach =
        static_cast<uint64_t>(drain_factor * static_cast<double>(largest_published_.load(std::memory_order_relaxed)));
    for (uint64_t i = n; i > oldest; --i) {
      const Slot& slot = ring_[(i - 1) & (capacity_ - 1)];
      const uint64_t end = slot.end.load(std::memory_order_acquire);
      if (end + longest_reach < from) return false;  // ends come in order
      const uint64_t start = slot.start.load(std::memory_order_relaxed);
      const auto drained = end + static_cast<uint64_t>(drain_factor * static_cast<double>(end - start));
      if (drained >= from && start <= to) return true;
    }
    return false;
  }

  // Owner only (or after the owner stopped):
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  uint64_t total_cycles() const { return total_cycles_; }
  uint64_t largest_cycles() const { return largest_published_.load(std::memory_order_relaxed); }
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
  void note_length(uint64_t length) {
    if (length > largest_published_.load(std::memory_order_relaxed)) {
      largest_published_.store(length, std::memory_order_relaxed);
    }
  }

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
  std::atomic<uint64_t> largest_published_{0};  // readers bound their scan with it
};

// The stall logs whose stalls can delay a request, and the rule that says whether one did.
// A request is touched when a stall of one of these CPUs, or the drain after it (as long
// again as the stall: the backlog it left), overlaps the request's life. docs/runtime.md,
// "Host stalls", says how this rule was chosen (the simulator with this machine's stalls
// injected, experiments/stall_rule.py) and how far its figures are from the truth.
class StallWatch {
 public:
  // The drain after a stall, in stall lengths.
  static constexpr double kDrainFactor = 1.0;

  void watch(const StallLog* log) { logs_.push_back(log); }
  // `from` and `to` in the logs' ticks: the request's arrival and finish by the runtime's
  // rule (the simulator also tries others).
  bool touched(uint64_t from, uint64_t to, double drain_factor = kDrainFactor) const {
    for (const StallLog* log : logs_) {
      if (log->touches(from, to, drain_factor)) return true;
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
