// A task: a unit of work on its own stack that can stop in the middle (at a probe or a
// yield) and be resumed later. A TaskRunner is the per-thread side that resumes tasks.
// This is the bare mechanism: when a task must stop is preemption's business
// (preempt/quantum_runner.h wraps a runner with the quantum's deadline).
#pragma once

#include <cstdint>

#include "core/context.h"

namespace quanta {

class TaskRunner;

struct Task {
  using Body = void (*)(Task& task);

  Context context;
  StackRegion stack;
  Body body = nullptr;
  void* user = nullptr;         // what the body works on (a request slot, a function call)
  bool finished = false;
  uint64_t yields = 0;          // times the task gave up the CPU before finishing
  uint64_t last_stop_tsc = 0;   // when its runner got the CPU back (yield or finish)
  uint64_t attained_cycles = 0; // time it has run so far, not counting time preempted
  uint64_t first_run_tsc = 0;   // when it first got the CPU (0: not yet)
  int saved_errno = 0;          // the task's errno while it is not running

  // Binds the task to a body and a stack; it starts running at the first resume.
  void start(StackRegion stack_region, Body task_body, void* task_user);
};

class TaskRunner {
 public:
  // Runs `task` until it yields or finishes. `start_tsc` is now (the caller usually has
  // it: the previous quantum's stop). Sets task.last_stop_tsc and adds the quantum to
  // task.attained_cycles. Returns true if it finished. One cycle-counter read per
  // quantum, on the scheduler side: the yield path itself reads no clock.
  bool resume(Task& task, uint64_t start_tsc);

  // Called from inside the running task: back to resume()'s caller.
  void yield_running();

  Task* running() const { return running_; }

  // The runner of the calling thread, or nullptr if this thread never resumed a task.
  static TaskRunner* current();

 private:
  friend struct TaskEntry;
  Context scheduler_;
  Task* running_ = nullptr;
};

}  // namespace quanta
