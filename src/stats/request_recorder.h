// The one place where a finished request becomes statistics. Every runtime feeds it: the
// workers and the dispatcher of quanta's runtime, the kernel-thread baseline's pool
// threads, and the simulator. Each passes times in its own tick (cycle-counter cycles, or
// simulated ns) and says how many ns a tick is; conversion happens here, once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "stats/class_stats.h"
#include "stats/live_histogram.h"

namespace quanta {

struct FinishedTimes {
  uint64_t arrival;             // ticks: when the request arrived (its intended arrival, for a schedule)
  uint64_t finish;              // ticks
  uint64_t cpu;                 // ticks the handler ran, time preempted not counted
  uint32_t nominal_service_ns;  // the source's service time for it; 0: unknown (slowdown uses cpu)
  uint32_t class_index;
  uint32_t preemptions;         // times it was stopped before it finished
  bool measured;                // after the warm-up: counts in the statistics
  bool stall_touched = false;   // a host stall may have delayed it (StallWatch, stall_log.h)
};

class RequestRecorder {
 public:
  RequestRecorder(std::size_t class_count, double ns_per_tick)
      : classes_(class_count), touched_(class_count), untouched_extremes_(class_count), ns_per_tick_(ns_per_tick) {}

  void record(const FinishedTimes& t) {
    const uint64_t sojourn_ticks = t.finish > t.arrival ? t.finish - t.arrival : 0;
    const uint64_t sojourn_ns = to_ns(sojourn_ticks);
    // The live counts see the warm-up too: a controller acts from the run's start.
    if (live_ != nullptr) live_->record(sojourn_ns);
    if (!t.measured || t.class_index >= classes_.size()) return;
    const uint64_t cpu_ns = to_ns(t.cpu);
    const uint64_t slowdown = classes_[t.class_index].record(sojourn_ns, t.nominal_service_ns, cpu_ns, t.preemptions);
    // The stall-free subset is every request less the stall-touched ones, which are rare:
    // those are recorded a second time, and for the others only the extremes are kept
    // (what the difference cannot give), instead of three more histogram records each.
    if (t.stall_touched) {
      touched_[t.class_index].record(sojourn_ns, t.nominal_service_ns, cpu_ns, t.preemptions);
    } else {
      untouched_extremes_[t.class_index].note(sojourn_ns, cpu_ns, slowdown);
    }
  }

  // Also count every finished request's sojourn (ns) in `live`, which another thread reads
  // as the run goes on (the adaptive quantum, per-interval statistics). Null: don't.
  void set_live(LiveHistogram* live) { live_ = live; }

  // Every measured request, and the subset no host stall touched (made when asked: a
  // copy of every request's statistics less the touched ones').
  const ClassStatsSet& classes() const { return classes_; }
  ClassStatsSet& classes() { return classes_; }
  ClassStatsSet untouched() const {
    ClassStatsSet out = classes_;
    for (std::size_t i = 0; i < out.size(); ++i) out[i].remove(touched_[i], untouched_extremes_[i]);
    return out;
  }

 private:
  uint64_t to_ns(uint64_t ticks) const { return static_cast<uint64_t>(static_cast<double>(ticks) * ns_per_tick_); }

  ClassStatsSet classes_;
  ClassStatsSet touched_;                              // measured requests a host stall may have delayed
  std::vector<ClassStats::Extremes> untouched_extremes_;  // ... and the others' extremes
  double ns_per_tick_;
  LiveHistogram* live_ = nullptr;
};

}  // namespace quanta
