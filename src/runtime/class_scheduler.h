// A worker's side of --class-schedule: the ClassedPolicy it picks tasks with (queues per
// class, Microquanta budgets: policy/classed_policy.h), the budget accounting around
// each quantum, in cycle-counter units, and admission: best-effort requests may hold all
// task slots but a reserve kept for latency-critical ones, and wait for a slot in a
// backlog of their own meanwhile, so that a BE backlog never keeps an LC request in the
// ring behind it (the ring is FIFO; a worker admits from it only into free slots). The worker reads the clock at every quantum's start
// and stop anyway; this only does arithmetic on those reads, so the hot path stays free of
// system calls, locks and allocation (the per-class counters are sized at construction).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "policy/classed_policy.h"
#include "runtime/request.h"
#include "stats/class_usage.h"

namespace quanta {

class ClassScheduler {
 public:
  // `policy` is the worker's local policy (it outlives this) over `task_slots` slots,
  // `classes` its schedule; BE requests beyond their slots wait in a backlog of
  // `backlog_capacity`.
  ClassScheduler(ClassedPolicy& policy, const std::vector<ClassParams>& classes, uint32_t task_slots,
                 std::size_t backlog_capacity)
      : policy_(policy),
        usage_(policy.class_count()),
        slot_best_effort_(task_slots, false),
        best_effort_slots_(task_slots - lc_reserve(task_slots)),
        backlog_(backlog_capacity) {
    for (const ClassParams& p : classes) best_effort_.push_back(!p.latency_critical);
  }

  // Slots only LC requests may take: a quarter, at least one when there are two or more.
  static uint32_t lc_reserve(uint32_t task_slots) {
    return task_slots < 2 ? 0 : std::max<uint32_t>(1, task_slots / 4);
  }

  bool best_effort(uint32_t class_index) const {
    // A class past the schedule's last entry is scheduled as that entry.
    return best_effort_[std::min<std::size_t>(class_index, best_effort_.size() - 1)];
  }

  // A request just taken from the ring: whether it must wait in the backlog (a BE request
  // with no BE slot free, or behind BE requests already waiting); then defer() it.
  bool must_wait(const Request& r) const {
    return best_effort(r.class_index) && (best_effort_in_slots_ >= best_effort_slots_ || backlog_count_ > 0);
  }
  bool backlog_full() const { return backlog_count_ == backlog_.size(); }
  std::size_t backlog_count() const { return backlog_count_; }
  void defer(Request* r) {
    backlog_[(backlog_head_ + backlog_count_) % backlog_.size()] = r;
    ++backlog_count_;
    ++usage_[class_of(r->class_index)].admissions_deferred;
  }
  // The oldest waiting BE request if a BE slot is free now (the caller has a free slot).
  Request* next_deferred() {
    if (backlog_count_ == 0 || best_effort_in_slots_ >= best_effort_slots_) return nullptr;
    Request* r = backlog_[backlog_head_];
    backlog_head_ = (backlog_head_ + 1) % backlog_.size();
    --backlog_count_;
    return r;
  }

  // Before admitting a task to the policy: its slot and its request's class.
  void admitting(TaskId task, uint32_t class_index) {
    policy_.set_class(task, class_index);
    slot_best_effort_[task] = best_effort(class_index);
    if (slot_best_effort_[task]) ++best_effort_in_slots_;
  }
  // Its request finished and the slot is free again.
  void leaving(TaskId task) {
    if (slot_best_effort_[task]) --best_effort_in_slots_;
    slot_best_effort_[task] = false;
  }
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
      out[c].admissions_deferred = usage_[c].admissions_deferred;
    }
    return out;
  }

 private:
  struct ClassUsageCycles {
    uint64_t quanta = 0;
    uint64_t cycles = 0;
    uint64_t budget_ended_quanta = 0;
    uint64_t throttled_spells = 0;
    uint64_t admissions_deferred = 0;
  };
  std::size_t class_of(uint32_t class_index) const { return std::min<std::size_t>(class_index, usage_.size() - 1); }

  ClassedPolicy& policy_;
  std::vector<ClassUsageCycles> usage_;
  std::vector<bool> best_effort_;          // per schedule entry
  std::vector<bool> slot_best_effort_;     // per task slot: holds a BE request
  uint32_t best_effort_slots_;             // slots BE requests may hold at once
  uint32_t best_effort_in_slots_ = 0;
  std::vector<Request*> backlog_;          // BE requests waiting for a slot, FIFO (a ring)
  std::size_t backlog_head_ = 0;
  std::size_t backlog_count_ = 0;
  uint32_t running_ = 0;   // the class of the quantum that runs
  bool cut_ = false;       // ... and whether its budget shortened it
  bool throttled_ = false; // an idle spell with capped work waiting is under way
};

}  // namespace quanta
