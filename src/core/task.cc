#include "core/task.h"

#include <cerrno>

#include "core/tsc.h"

namespace quanta {
namespace {
// initial-exec, as quanta/probe.h's QUANTA_TLS: in libquanta.so too, reading it on the
// yield path is one %fs-relative load, not a __tls_get_addr call.
thread_local TaskRunner* t_runner __attribute__((tls_model("initial-exec"))) = nullptr;
}  // namespace

struct TaskEntry {
  static void run(void* raw) {
    auto& task = *static_cast<Task*>(raw);
    task.body(task);
    task.finished = true;
    TaskRunner* runner = t_runner;
    runner->running_ = nullptr;
    Context::switch_final(task.context, runner->scheduler_);
  }
};

void Task::start(StackRegion stack_region, Body task_body, void* task_user) {
  stack = stack_region;
  body = task_body;
  user = task_user;
  finished = false;
  yields = 0;
  attained_cycles = 0;
  first_run_tsc = 0;
  saved_errno = 0;
  context.prepare(stack, &TaskEntry::run, this);
}

TaskRunner* TaskRunner::current() { return t_runner; }

bool TaskRunner::resume(Task& task, uint64_t start_tsc) {
  TaskRunner* const outer = t_runner;  // restored below, in case runners nest
  t_runner = this;
  running_ = &task;
  if (task.first_run_tsc == 0) task.first_run_tsc = start_tsc;
  // errno belongs to the task, not to the thread it happens to run on: a task preempted
  // between a failing call and its check of errno must find its own value, on whichever
  // worker it resumes, and the scheduler's loop keeps its own.
  const int scheduler_errno = errno;
  errno = task.saved_errno;
  Context::switch_to(scheduler_, task.context);
  task.saved_errno = errno;
  errno = scheduler_errno;
  task.last_stop_tsc = read_tsc();
  task.attained_cycles += task.last_stop_tsc - start_tsc;
  t_runner = outer;
  return task.finished;
}

void TaskRunner::yield_running() {
  Task* task = running_;
  ++task->yields;
  running_ = nullptr;
  Context::switch_to(task->context, scheduler_);
}

}  // namespace quanta
