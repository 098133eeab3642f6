// The preemptible-function API (include/quanta/fn.h) on top of Task and TaskRunner. Each
// function call owns a one-stack pool, so its stack has a guard page like any task's.
#include <memory>
#include <new>

#include "core/stack_pool.h"
#include "core/task.h"
#include "core/tsc.h"
#include "preempt/quantum_runner.h"
#include "quanta/fn.h"

struct quanta_fn {
  std::unique_ptr<quanta::StackPool> stacks;
  quanta::Task task;
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;
};

namespace {

constexpr uint64_t kDefaultStackBytes = 64 * 1024;

thread_local quanta::QuantumRunner t_fn_runner QUANTA_TLS;

void run_fn(quanta::Task& task) {
  auto* f = static_cast<quanta_fn*>(task.user);
  f->fn(f->arg);
}

bool run_quantum(quanta_fn* f, uint64_t quantum_cycles) {
  const uint64_t now = quanta::read_tsc();
  return t_fn_runner.resume(f->task, now, quantum_cycles == 0 ? quanta::QuantumRunner::kNoDeadline : now + quantum_cycles);
}

}  // namespace

extern "C" {

quanta_fn* quanta_fn_launch(void (*fn)(void*), void* arg, uint64_t quantum_cycles, uint64_t stack_bytes) {
  auto* f = new (std::nothrow) quanta_fn;
  if (f == nullptr) return nullptr;
  try {
    f->stacks = std::make_unique<quanta::StackPool>(1, stack_bytes ? stack_bytes : kDefaultStackBytes);
  } catch (...) {
    delete f;
    return nullptr;
  }
  quanta::install_stack_overflow_reporter();
  f->fn = fn;
  f->arg = arg;
  f->task.start(f->stacks->acquire(), &run_fn, f);
  run_quantum(f, quantum_cycles);
  return f;
}

int quanta_fn_resume(quanta_fn* f, uint64_t quantum_cycles) {
  if (f->task.finished) return 1;
  return run_quantum(f, quantum_cycles) ? 1 : 0;
}

int quanta_fn_completed(const quanta_fn* f) { return f->task.finished ? 1 : 0; }
uint64_t quanta_fn_yields(const quanta_fn* f) { return f->task.yields; }
uint64_t quanta_fn_last_stop_tsc(const quanta_fn* f) { return f->task.last_stop_tsc; }

void quanta_fn_destroy(quanta_fn* f) { delete f; }

}  // extern "C"
