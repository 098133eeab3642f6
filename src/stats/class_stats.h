// What the statistics keep per request class: sojourn (ns), CPU time (ns) and slowdown (in
// thousandths, so the integer histogram resolves slowdowns near 1) histograms and
// preemption counts. Each thread that finishes requests fills its own set; they are merged
// once the run is over.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "stats/histogram.h"

namespace quanta {

struct ClassStats {
  Histogram sojourn_ns;
  Histogram cpu_ns;           // CPU time the handler used (time preempted not counted)
  Histogram slowdown_milli;   // slowdown x 1000
  uint64_t preemptions = 0;   // summed over the class's requests
  // Slowdown divides by the nominal service time where the source knew it (the workload's
  // draw) and by the measured CPU time otherwise: how many samples used which.
  uint64_t slowdown_on_nominal = 0;
  uint64_t slowdown_on_cpu = 0;

  // Returns the slowdown (x 1000) it recorded.
  uint64_t record(uint64_t sojourn, uint64_t nominal_service_ns, uint64_t cpu, uint64_t request_preemptions) {
    sojourn_ns.record(sojourn);
    cpu_ns.record(cpu);
    uint64_t slowdown = 0;
    if (nominal_service_ns > 0) {
      slowdown = sojourn * 1000 / nominal_service_ns;
      ++slowdown_on_nominal;
    } else {
      // A request that used no measurable CPU gets slowdown sojourn / 1 ns.
      slowdown = sojourn * 1000 / (cpu > 0 ? cpu : 1);
      ++slowdown_on_cpu;
    }
    slowdown_milli.record(slowdown);
    preemptions += request_preemptions;
    return slowdown;
  }
  // The smallest and largest of each histogram's values over some of the requests.
  struct Extremes {
    uint64_t sojourn_min = UINT64_MAX, sojourn_max = 0;
    uint64_t cpu_min = UINT64_MAX, cpu_max = 0;
    uint64_t slowdown_min = UINT64_MAX, slowdown_max = 0;
    void note(uint64_t sojourn, uint64_t cpu, uint64_t slowdown) {
      sojourn_min = std::min(sojourn_min, sojourn);
      sojourn_max = std::max(sojourn_max, sojourn);
      cpu_min = std::min(cpu_min, cpu);
      cpu_max = std::max(cpu_max, cpu);
      slowdown_min = std::min(slowdown_min, slowdown);
      slowdown_max = std::max(slowdown_max, slowdown);
    }
  };
  // Takes the requests of `part` (a subset of those recorded here) out again; `left` are
  // the extremes of the requests that remain (Histogram::remove).
  void remove(const ClassStats& part, const Extremes& left) {
    sojourn_ns.remove(part.sojourn_ns, left.sojourn_min, left.sojourn_max);
    cpu_ns.remove(part.cpu_ns, left.cpu_min, left.cpu_max);
    slowdown_milli.remove(part.slowdown_milli, left.slowdown_min, left.slowdown_max);
    preemptions -= part.preemptions;
    slowdown_on_nominal -= part.slowdown_on_nominal;
    slowdown_on_cpu -= part.slowdown_on_cpu;
  }
  void merge(const ClassStats& other) {
    sojourn_ns.merge(other.sojourn_ns);
    cpu_ns.merge(other.cpu_ns);
    slowdown_milli.merge(other.slowdown_milli);
    preemptions += other.preemptions;
    slowdown_on_nominal += other.slowdown_on_nominal;
    slowdown_on_cpu += other.slowdown_on_cpu;
  }
};

using ClassStatsSet = std::vector<ClassStats>;  // indexed by class

inline void merge_into(ClassStatsSet& into, const ClassStatsSet& from) {
  if (into.size() < from.size()) into.resize(from.size());
  for (std::size_t i = 0; i < from.size(); ++i) into[i].merge(from[i]);
}

}  // namespace quanta
