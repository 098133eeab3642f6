// Local (per-worker) scheduling policies: which of the worker's admitted tasks runs next,
// and whether it may be stopped when its quantum ends. Pure decision code: tasks are
// small integer ids, service is in whatever unit the caller uses (cycles in the runtime,
// ns in the simulator); no threads, no clocks, no allocation after construction.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quanta {

using TaskId = uint32_t;

class LocalPolicy {
 public:
  virtual ~LocalPolicy() = default;

  // A newly admitted task (no service yet).
  virtual void admit(TaskId task) = 0;
  // A task that ran for a quantum without finishing, with its total service so far.
  virtual void requeue(TaskId task, uint64_t attained_service) = 0;
  // The next task to run, removed from the policy; nullopt when none is waiting.
  virtual std::optional<TaskId> pick() = 0;
  // Whether a running task is stopped at the end of its quantum (false: run to completion).
  virtual bool preemptive() const = 0;
  virtual std::size_t waiting() const = 0;
  virtual std::string_view name() const = 0;
};

// `max_tasks`: the most tasks that can be waiting at once (the worker's task slots).
// Throws std::invalid_argument naming the policy if `name` is not one of local_policy_names().
std::unique_ptr<LocalPolicy> make_local_policy(std::string_view name, std::size_t max_tasks);
const std::vector<std::string>& local_policy_names();

}  // namespace quanta
