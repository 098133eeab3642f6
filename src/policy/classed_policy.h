// A local policy over scheduling classes: one queue per class, each ordered by the same
// local policy (ps, fcfs, las), and ClassBandwidth (policy/class_bandwidth.h) choosing
// which class's queue the next task comes from. The runner tells it each task's class at
// admission, the time before each pick, and what each quantum used; it asks how long the
// picked task may run (a BE class on its budget stops when the budget ends).
// Pure decision code, as every local policy; the unit of time is the caller's.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "policy/class_bandwidth.h"
#include "policy/local_policy.h"

namespace quanta {

class ClassedPolicy final : public LocalPolicy {
 public:
  static constexpr std::size_t kMaxClasses = 64;

  // `inner`: the local policy of every class queue; `max_tasks` as for make_local_policy.
  ClassedPolicy(std::string_view inner, std::size_t max_tasks, std::vector<ClassParams> classes);

  // Before admit(task): the class of that task.
  void set_class(TaskId task, uint32_t class_index);
  // Before pick(): the time now.
  void set_now(uint64_t now) { now_ = now; }
  // After a quantum of a task of class `c` that ran `ran`, ending at `now`.
  void charge(uint32_t c, uint64_t ran, uint64_t now) { bandwidth_.charge(c, ran, now); }
  // How long the task just picked may run from now before its class's budget ends
  // (ClassBandwidth::kUnlimited: the quantum decides).
  uint64_t allowance() { return last_class_ ? bandwidth_.allowance(*last_class_, now_) : ClassBandwidth::kUnlimited; }
  // The class of the task just picked.
  std::optional<uint32_t> picked_class() const { return last_class_; }
  // How many classes, and the tasks of class `c` waiting to run.
  std::size_t class_count() const { return queues_.size(); }
  std::size_t waiting_in(uint32_t c) const { return queues_[c]->waiting(); }

  void admit(TaskId task) override;
  void requeue(TaskId task, uint64_t attained_service) override;
  std::optional<TaskId> pick() override;
  bool preemptive() const override { return queues_.front()->preemptive(); }
  std::size_t waiting() const override { return waiting_; }
  std::string_view name() const override { return name_; }

 private:
  std::vector<std::unique_ptr<LocalPolicy>> queues_;  // one per class
  std::vector<uint32_t> class_of_;                     // per task id
  ClassBandwidth bandwidth_;
  std::optional<uint32_t> last_class_;
  uint64_t now_ = 0;
  std::size_t waiting_ = 0;
  std::string name_;
};

// "lc,be:30/100,be:20/100:cap": one entry per class index: lc or be, then optionally
// :RUNTIME/PERIOD (a bandwidth, in the caller's unit after `scale`), then optionally :cap,
// and :pN for a priority. Throws std::invalid_argument naming the entry.
std::vector<ClassParams> parse_class_schedule(std::string_view spec, double scale);

}  // namespace quanta
