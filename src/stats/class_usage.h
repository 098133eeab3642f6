// What each scheduling class of a --class-schedule run used of its workers' CPUs: the
// budget accounting, measured (the runtime: cycle-counter reads at quantum ends; the
// simulator: simulated time), summed over the workers.
#pragma once

#include <cstdint>
#include <vector>

namespace quanta {

struct ClassUsage {
  uint64_t quanta = 0;               // quanta its tasks ran
  double cpu_ns = 0;                 // their length, summed
  uint64_t budget_ended_quanta = 0;  // quanta cut short where the class's budget ended (and not finished)
  // Times a worker sat idle while tasks of this class waited: a capped class out of budget
  // (one per spell, not per idle iteration).
  uint64_t throttled_spells = 0;
  // BE requests that waited for a task slot beside the ring (the slots LC keeps were all
  // that was free), so that LC requests behind them in the ring were not held up.
  uint64_t admissions_deferred = 0;
};

using ClassUsageSet = std::vector<ClassUsage>;

inline void add_usage(ClassUsageSet& into, const ClassUsageSet& from) {
  if (into.size() < from.size()) into.resize(from.size());
  for (std::size_t i = 0; i < from.size(); ++i) {
    into[i].quanta += from[i].quanta;
    into[i].cpu_ns += from[i].cpu_ns;
    into[i].budget_ended_quanta += from[i].budget_ended_quanta;
    into[i].throttled_spells += from[i].throttled_spells;
    into[i].admissions_deferred += from[i].admissions_deferred;
  }
}

}  // namespace quanta
