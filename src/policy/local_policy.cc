#include "policy/local_policy.h"

#include <stdexcept>

#include "policy/task_fifo.h"

namespace quanta {
namespace {

// Processor sharing as round robin: a task that used up its quantum goes to the back.
class ProcessorSharing final : public LocalPolicy {
 public:
  explicit ProcessorSharing(std::size_t max_tasks) : queue_(max_tasks) {}
  void admit(TaskId task) override { queue_.push_back(task); }
  void requeue(TaskId task, uint64_t) override { queue_.push_back(task); }
  std::optional<TaskId> pick() override { return queue_.pop_front(); }
  bool preemptive() const override { return true; }
  std::size_t waiting() const override { return queue_.size(); }
  std::string_view name() const override { return "ps"; }

 private:
  TaskFifo queue_;
};

// First come, first served, run to completion. A task that gives up the CPU anyway (an
// explicit quanta_yield) resumes first, so the order of service stays arrival order.
class FirstComeFirstServed final : public LocalPolicy {
 public:
  explicit FirstComeFirstServed(std::size_t max_tasks) : queue_(max_tasks) {}
  void admit(TaskId task) override { queue_.push_back(task); }
  void requeue(TaskId task, uint64_t) override { queue_.push_front(task); }
  std::optional<TaskId> pick() override { return queue_.pop_front(); }
  bool preemptive() const override { return false; }
  std::size_t waiting() const override { return queue_.size(); }
  std::string_view name() const override { return "fcfs"; }

 private:
  TaskFifo queue_;
};

// Least attained service first: the task that has received the least service runs next;
// ties go to the one that has waited longest. A binary min-heap over (service, sequence).
class LeastAttainedService final : public LocalPolicy {
 public:
  explicit LeastAttainedService(std::size_t max_tasks) { heap_.reserve(max_tasks); }
  void admit(TaskId task) override { push(task, 0); }
  void requeue(TaskId task, uint64_t attained) override { push(task, attained); }
  std::optional<TaskId> pick() override {
    if (heap_.empty()) return std::nullopt;
    const TaskId top = heap_.front().task;
    heap_.front() = heap_.back();
    heap_.pop_back();
    sift_down(0);
    return top;
  }
  bool preemptive() const override { return true; }
  std::size_t waiting() const override { return heap_.size(); }
  std::string_view name() const override { return "las"; }

 private:
  struct Entry {
    uint64_t attained;
    uint64_t sequence;
    TaskId task;
    bool before(const Entry& other) const {
      return attained != other.attained ? attained < other.attained : sequence < other.sequence;
    }
  };
  void push(TaskId task, uint64_t attained) {
    heap_.push_back({attained, next_sequence_++, task});
    std::size_t i = heap_.size() - 1;
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!heap_[i].before(heap_[parent])) break;
      std::swap(heap_[i], heap_[parent]);
      i = parent;
    }
  }
  void sift_down(std::size_t i) {
    const std::size_t n = heap_.size();
    for (;;) {
      std::size_t best = i;
      const std::size_t left = 2 * i + 1, right = left + 1;
      if (left < n && heap_[left].before(heap_[best])) best = left;
      if (right < n && heap_[right].before(heap_[best])) best = right;
      if (best == i) return;
      std::swap(heap_[i], heap_[best]);
      i = best;
    }
  }
  std::vector<Entry> heap_;  // capacity reserved up front
  uint64_t next_sequence_ = 0;
};

}  // namespace

const std::vector<std::string>& local_policy_names() {
  static const std::vector<std::string> names{"ps", "fcfs", "las"};
  return names;
}

std::unique_ptr<LocalPolicy> make_local_policy(std::string_view name, std::size_t max_tasks) {
  if (name == "ps") return std::make_unique<ProcessorSharing>(max_tasks);
  if (name == "fcfs") return std::make_unique<FirstComeFirstServed>(max_tasks);
  if (name == "las") return std::make_unique<LeastAttainedService>(max_tasks);
  throw std::invalid_argument("unknown local policy '" + std::string(name) + "' (expected ps, fcfs or las)");
}

}  // namespace quanta
