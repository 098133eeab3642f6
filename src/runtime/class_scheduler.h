// A worker's side of --class-schedule: the ClassedPolicy it picks tasks with (queues per
// class, Microquanta budgets: policy/classed_policy.h) and the budget accounting around
// each quantum, in cycle-counter units. The worker reads the clock at every quantum's start
// and stop anyway; this only does arithmetic on those reads, so the hot path stays free of
// system calls, locks and allocation (the per-class counters are sized at construction).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "policy/classed_policy.h"
#include "stats/class_usage.h"

namespace quanta {

class ClassScheduler {
 public:
  // `policy` is the worker's local policy (it outlives this).
  explicit ClassScheduler(ClassedPolicy& policy) : policy_(policy), usage_(policy.class_count()) {}

  // Before admitting a task to the policy: its request's class.
  void admitting(TaskId task, uint32_t class_index) { policy_.set_class(task, class_index); }
  // Before each pick: the clock, which decides whose budget period it is.
  void before_pick(uint64_t now) { policy_.set_now(now); }

  // After a pick that gave a task whose quantum would be `quantum_cycles` long: the
  // quantum it gets, ending where its class's budget does if that comes first.
  uint64_t picked(uint64_t quantum_cycles) {
    running_ = *policy_.picked_class();
    throttled_ = false;
    const uint64_t allowance = std::max<uint64_t>(policy_.allowance(), 1);
    cut_ = allowance < quantum_cycles;
    return cut_ ? allowance : quantum_cycles;
  }

  // The quantum of the picked task ran from `start` to `stop`; `done`: its request finished.
  void quantum_ended(uint64_t start, uint64_t stop, bool done) {
    const uint64_t ran = stop > start ? stop - start : 0;
    policy_.charge(running_, ran, stop);
    ClassUsageCycles& u = usage_[running_];
    ++u.quanta;
    u.cycles += ran;
    if (cut_ && !done) ++u.budget_ended_quanta;
  }

  // A pick that gave nothing. Tasks may still wait: capped classes out of budget until
  // their next period. True when some do (the worker must not sleep on its ring then).
  bool nothing_picked() {
    if (policy_.waiting() == 0) return false;
    if (!throttled_) {
      throttled_ = true;
      for (uint32_t c = 0; c < usage_.size(); ++c) {
        if (policy_.waiting_in(c) > 0) ++usage_[c].throttled_spells;
      }
    }
    return true;
  }

  // What each class used, cycles converted with `ns_per_cycle`.
  ClassUsageSet usage(double ns_per_cycle) const {
    ClassUsageSet out(usage_.size());
    for (std::size_t c = 0; c < usage_.size(); ++c) {
      out[c].quanta = usage_[c].quanta;
      out[c].cpu_ns = static_cast<double>(usage_[c].cycles) * ns_per_cycle;
      out[c].budget_ended_quanta = usage_[c].budget_ended_quanta;
      out[c].throttled_spells = usage_[c].throttled_spells;
    }
    return out;
  }

 private:
  struct ClassUsageCycles {
    uint64_t quanta = 0;
    uint64_t cycles = 0;
    uint64_t budget_ended_quanta = 0;
    uint64_t throttled_spells = 0;
  };
  ClassedPolicy& policy_;
  std::vector<ClassUsageCycles> usage_;
  uint32_t running_ = 0;   // the class of the quantum that runs
  bool cut_ = false;       // ... and whether its budget shortened it
  bool throttled_ = false; // an idle spell with capped work waiting is under way
};

}  // namespace quanta
