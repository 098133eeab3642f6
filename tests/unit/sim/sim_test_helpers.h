// What the simulator's tests share: running a config on its own workload, and one
// ClassStats over every class of a result.
#pragma once

#include "sim/engine.h"
#include "stats/class_stats.h"

namespace quanta::sim_test {

inline SimResult sim(const SimConfig& c, SimObserver* observer = nullptr) {
  return simulate(c, Workload::parse(c.run.workload), observer);
}

inline ClassStats overall(const SimResult& r) {
  ClassStats all;
  for (const ClassStats& c : r.run.classes) all.merge(c);
  return all;
}

}  // namespace quanta::sim_test
