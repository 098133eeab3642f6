// Dispatcher cost per request with no-op requests; every arrival is due at once, so the
// dispatcher never waits for the clock. The measuring code is shared with
// `quanta calibrate` (src/calibrate/measurements.cc); here Google Benchmark repeats it.
//  - BM_DispatcherOnly: the dispatcher's own work (JSQ-MSQ over 4 workers' counter lines
//    + ring push), with a consumer on the other CPU that only drains the rings.
//  - BM_TwoLevelNoop: end to end through one real worker that runs each no-op request as
//    a task (admission, task start, finish, statistics).
#include <benchmark/benchmark.h>

#include <vector>

#include "calibrate/measurements.h"
#include "policy/dispatch_policy.h"

namespace {

template <double (*kMeasure)(std::size_t)>
void BM_NsPerRequest(benchmark::State& state) {
  const auto requests = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    const double ns_per_request = kMeasure(requests);
    state.SetIterationTime(ns_per_request * 1e-9);  // reported time = one request's
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_NsPerRequest<quanta::calibrate::dispatcher_only_ns_per_request>)
    ->Name("BM_DispatcherOnly")
    ->Arg(1 << 21)
    ->UseManualTime()
    ->Iterations(3);
BENCHMARK(BM_NsPerRequest<quanta::calibrate::two_level_noop_ns_per_request>)
    ->Name("BM_TwoLevelNoop")
    ->Arg(1 << 20)
    ->UseManualTime()
    ->Iterations(3);
BENCHMARK(BM_NsPerRequest<quanta::calibrate::central_noop_ns_per_request_at<1>>)
    ->Name("BM_CentralNoop")
    ->Arg(1 << 19)
    ->UseManualTime()
    ->Iterations(3);
BENCHMARK(BM_NsPerRequest<quanta::calibrate::central_noop_ns_per_request_at<2>>)
    ->Name("BM_Jbsq2Noop")
    ->Arg(1 << 19)
    ->UseManualTime()
    ->Iterations(3);

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
