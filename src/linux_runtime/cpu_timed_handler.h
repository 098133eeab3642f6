// Runs an app's handler on a kernel thread so that quanta_task_cpu_cycles() still means
// "CPU time this request has had", the quantity the synthetic handler spins on.
//
// quanta_task_cpu_cycles() is 0 outside a task, so the call runs in a task on this
// thread's own stack, resumed at once whenever it stops: there is no user-level
// scheduling, the kernel alone decides who runs. A task counts elapsed cycle-counter time,
// which would also count the time the kernel ran another thread in the middle of the
// handler. So the task runs in short accounting slices (its clock probes end each one),
// and a slice that took much longer than asked had the thread off the CPU: the excess is
// taken back from the task's attained time. The handler's work is then right to within
// one slice (it can still lose the off-CPU time of its last slice, at most
// kSliceNs, when that slice is where the kernel preempted it).
//
// Reading the thread's CPU clock instead (CLOCK_THREAD_CPUTIME_ID) is exact but a real
// syscall here, ~0.55 us a read: more than a whole short request.
#pragma once

#include <cstdint>

#include "core/stack_pool.h"
#include "core/task.h"
#include "preempt/quantum_runner.h"
#include "quanta/quanta.h"
#include "runtime/request.h"

namespace quanta {

class CpuTimedHandler {
 public:
  // Slices of 5 us cost one task switch each (~0.02 us): under 1% of a long request.
  static constexpr double kSliceNs = 5000;
  // A slice longer than asked by this much had the thread off the CPU: a context switch
  // away and back costs more; a probe's lateness or a timer interrupt costs less.
  static constexpr double kOffCpuGapNs = 2000;

  struct Outcome {
    uint32_t off_cpu_gaps = 0;      // slices in which the thread lost the CPU
    uint64_t off_cpu_cycles = 0;    // time away, taken back from the handler's CPU time
  };

  CpuTimedHandler(const quanta_app& app, std::size_t stack_bytes);
  ~CpuTimedHandler();
  CpuTimedHandler(const CpuTimedHandler&) = delete;
  CpuTimedHandler& operator=(const CpuTimedHandler&) = delete;

  // Runs the handler on `request` (its response lands in the record). The task's
  // first_run_tsc and attained_cycles then tell the request's start and CPU time.
  Outcome call(Request& request);
  const Task& task() const { return task_; }

 private:
  static void body(Task& task);

  const quanta_app& app_;
  StackPool stacks_;
  StackRegion stack_;
  QuantumRunner runner_;
  Task task_;
  Request* request_ = nullptr;
  uint64_t slice_cycles_;
  uint64_t gap_cycles_;
};

}  // namespace quanta
