// Dispatcher cost per request with no-op requests. Every arrival is due at once, so the
// dispatcher never waits for the clock. BM_DispatchNoop: end to end, one real worker
// running each no-op request as a task (the worker is the bottleneck: the dispatcher
// waits on its full ring). BM_DispatcherOnly: the dispatcher's own cost.
#include <benchmark/benchmark.h>

#include <atomic>
#include <memory>
#include <vector>

#include "core/tsc.h"
#include "policy/dispatch_policy.h"
#include "runtime/cpu_layout.h"
#include "runtime/dispatcher.h"
#include "runtime/worker.h"

namespace {

void noop_handle(const quanta_request*, quanta_response* response) { response->value = 1; }
const quanta_app kNoopApp{"noop", nullptr, nullptr, &noop_handle};

void BM_DispatchNoop(benchmark::State& state) {
  const auto requests = static_cast<std::size_t>(state.range(0));
  std::vector<quanta::Arrival> schedule(requests, quanta::Arrival{0, 1, 0});
  const std::vector<int> cpus = quanta::allowed_cpus();
  quanta::WorkerConfig config;
  config.app = &kNoopApp;
  config.quantum_cycles = quanta::ns_to_cycles(2000);
  config.ring_capacity = 4096;
  uint64_t waits = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto worker = std::make_unique<quanta::Worker>(0, config);
    const quanta::WorkerPort ports[] = {worker->port()};
    auto policy = quanta::make_dispatch_policy("jsq-msq", 1);
    quanta::PinnedThread thread(cpus[1 % cpus.size()], [&] { worker->run(); });
    while (worker->state() == quanta::Worker::State::kStarting) quanta::cpu_relax();
    quanta::ScopedPin pin(cpus[0]);
    quanta::Dispatcher dispatcher(ports, *policy);
    quanta::DispatchPlan plan;
    plan.schedule = schedule;
    plan.start_tsc = quanta::read_tsc();
    state.ResumeTiming();
    const quanta::DispatchTotals totals = dispatcher.run(plan);  // returns when all finished
    state.PauseTiming();
    waits += totals.full_ring_waits;
    worker->request_stop();
    thread.join();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(requests));
  state.counters["full_ring_waits_per_request"] =
      static_cast<double>(waits) / static_cast<double>(state.iterations() * requests);
}
BENCHMARK(BM_DispatchNoop)->Arg(1 << 20)->Unit(benchmark::kMillisecond)->UseRealTime();

// The dispatcher's own cost: the same loop, with a consumer on the other CPU that only
// pops requests and publishes them as finished (no tasks), so it keeps the ring empty and
// the dispatcher never waits on it. Four workers' ports, so the policy has a choice.
void BM_DispatcherOnly(benchmark::State& state) {
  constexpr int kPorts = 4;
  const auto requests = static_cast<std::size_t>(state.range(0));
  std::vector<quanta::Arrival> schedule(requests, quanta::Arrival{0, 1, 0});
  const std::vector<int> cpus = quanta::allowed_cpus();
  uint64_t waits = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<std::unique_ptr<quanta::SpscRing<quanta::RequestMsg>>> rings;
    std::vector<quanta::WorkerCounters> counters(kPorts);
    std::vector<quanta::WorkerPort> ports;
    for (int i = 0; i < kPorts; ++i) {
      rings.push_back(std::make_unique<quanta::SpscRing<quanta::RequestMsg>>(4096));
      ports.push_back({rings.back().get(), &counters[i]});
    }
    std::atomic<bool> stop{false};
    quanta::PinnedThread consumer(cpus[1 % cpus.size()], [&] {
      std::vector<uint64_t> finished(kPorts, 0);
      quanta::RequestMsg msg;
      while (!stop.load(std::memory_order_relaxed)) {
        for (int i = 0; i < kPorts; ++i) {
          while (rings[i]->try_pop(msg)) ++finished[i];
          counters[i].finished.store(finished[i], std::memory_order_release);
        }
      }
    });
    auto policy = quanta::make_dispatch_policy("jsq-msq", 1);
    quanta::ScopedPin pin(cpus[0]);
    quanta::Dispatcher dispatcher(ports, *policy);
    quanta::DispatchPlan plan;
    plan.schedule = schedule;
    plan.start_tsc = quanta::read_tsc();
    state.ResumeTiming();
    waits += dispatcher.run(plan).full_ring_waits;
    state.PauseTiming();
    stop.store(true);
    consumer.join();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(requests));
  state.counters["full_ring_waits_per_request"] =
      static_cast<double>(waits) / static_cast<double>(state.iterations() * requests);
}
BENCHMARK(BM_DispatcherOnly)->Arg(1 << 22)->Unit(benchmark::kMillisecond)->UseRealTime();

// The decision alone, over 16 workers' loads.
void BM_JsqMsqChoose16(benchmark::State& state) {
  auto policy = quanta::make_dispatch_policy("jsq-msq", 1);
  std::vector<quanta::WorkerLoad> loads(16);
  uint32_t i = 0;
  for (auto _ : state) {
    loads[i++ & 15].outstanding ^= 1;
    benchmark::DoNotOptimize(policy->choose(loads));
  }
}
BENCHMARK(BM_JsqMsqChoose16);

}  // namespace
