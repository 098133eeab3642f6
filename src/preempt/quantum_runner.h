// Runs a task for one quantum: the preemption state of this thread (the deadline the clock
// probes compare with, the quantum's start for CPU-time accounting) is set before the
// switch into the task and cleared after it comes back. Every place that runs tasks
// (workers, the dispatcher's own requests, preemptible functions, the kernel-thread
// baseline) goes through here, so no task ever runs with a stale deadline.
#pragma once

#include <cstdint>

#include "core/task.h"
#include "preempt/preempt_state.h"

namespace quanta {

class QuantumRunner {
 public:
  static constexpr uint64_t kNoDeadline = UINT64_MAX;

  // Runs `task` until it yields or finishes; `deadline_tsc` is when its clock probes make
  // it yield (kNoDeadline: never). Returns true if it finished (see TaskRunner::resume).
  bool resume(Task& task, uint64_t start_tsc, uint64_t deadline_tsc) {
    preempt_state().begin_quantum(deadline_tsc, start_tsc, task.attained_cycles);
    const bool finished = runner_.resume(task, start_tsc);
    // Back on the scheduler side: nothing may preempt here.
    preempt_state().end_quantum();
    return finished;
  }

 private:
  TaskRunner runner_;
};

}  // namespace quanta
