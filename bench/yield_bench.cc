// Yield round trip: scheduler -> task -> scheduler, the cost every preemption pays twice.
#include <benchmark/benchmark.h>

#include "core/stack_pool.h"
#include "core/task.h"
#include "core/tsc.h"
#include "preempt/quantum_runner.h"
#include "quanta/fn.h"
#include "quanta/probe.h"

namespace {

void yield_forever(void*) {
  for (;;) quanta_yield();
}

void BM_YieldRoundTrip(benchmark::State& state) {
  quanta_fn* f = quanta_fn_launch(&yield_forever, nullptr, 0, 0);
  for (auto _ : state) quanta_fn_resume(f, 0);
  state.SetLabel("resume + yield back");
  // The function never completes; destroying it abandons its stack, which is fine here.
  quanta_fn_destroy(f);
}
BENCHMARK(BM_YieldRoundTrip);

// The same round trip as a worker runs it: the scheduler carries the previous stop's
// cycle count over as the next start, so a quantum costs one clock read.
void yield_forever_task(quanta::Task&) {
  for (;;) quanta_yield();
}

void BM_WorkerQuantumRoundTrip(benchmark::State& state) {
  quanta::StackPool pool(1, 64 * 1024);
  quanta::QuantumRunner runner;
  quanta::Task task;
  task.start(pool.acquire(), &yield_forever_task, nullptr);
  uint64_t now = quanta::read_tsc();
  for (auto _ : state) {
    runner.resume(task, now, quanta::QuantumRunner::kNoDeadline);
    now = task.last_stop_tsc;
  }
  state.SetLabel("resume + yield + time accounting");
}
BENCHMARK(BM_WorkerQuantumRoundTrip);

}  // namespace

// The bare mechanism under a yield: two fcontext jumps with nothing else.
#include "core/context.h"
#include "core/stack_pool.h"

namespace {

struct PingPong {
  quanta::Context main;
  quanta::Context task;
};

void bounce(void* raw) {
  auto& p = *static_cast<PingPong*>(raw);
  for (;;) quanta::Context::switch_to(p.task, p.main);
}

void BM_ContextSwitchRoundTrip(benchmark::State& state) {
  quanta::StackPool pool(1, 64 * 1024);
  PingPong p;
  p.task.prepare(pool.acquire(), &bounce, &p);
  for (auto _ : state) quanta::Context::switch_to(p.main, p.task);
  state.SetLabel("two fcontext jumps");
}
BENCHMARK(BM_ContextSwitchRoundTrip);

void BM_ReadTsc(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(quanta_read_tsc());
}
BENCHMARK(BM_ReadTsc);

}  // namespace
