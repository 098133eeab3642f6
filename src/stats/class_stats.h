// What the sink keeps per request class: sojourn (ns) and slowdown (in thousandths, so
// the integer histogram resolves slowdowns near 1) histograms and preemption counts. Each
// worker fills its own set; they are merged once the run is over.
#pragma once

#include <cstdint>
#include <vector>

#include "stats/histogram.h"

namespace quanta {

struct ClassStats {
  Histogram sojourn_ns;
  Histogram slowdown_milli;   // slowdown x 1000
  uint64_t preemptions = 0;   // summed over the class's requests

  void record(uint64_t sojourn, uint64_t service_ns, uint64_t request_preemptions) {
    sojourn_ns.record(sojourn);
    // A request whose service time is unknown (0) gets no slowdown sample.
    if (service_ns > 0) slowdown_milli.record(sojourn * 1000 / service_ns);
    preemptions += request_preemptions;
  }
  void merge(const ClassStats& other) {
    sojourn_ns.merge(other.sojourn_ns);
    slowdown_milli.merge(other.slowdown_milli);
    preemptions += other.preemptions;
  }
};

using ClassStatsSet = std::vector<ClassStats>;  // indexed by class

inline void merge_into(ClassStatsSet& into, const ClassStatsSet& from) {
  if (into.size() < from.size()) into.resize(from.size());
  for (std::size_t i = 0; i < from.size(); ++i) into[i].merge(from[i]);
}

}  // namespace quanta
