// What a probe costs when it does not fire: the price of instrumenting a loop. Measured
// inside a task (the deadline is far away) against the same loop without the probe.
#include <benchmark/benchmark.h>

#include "quanta/fn.h"
#include "quanta/probe.h"

namespace {

constexpr int kIterations = 1 << 16;

struct LoopArgs {
  bool probe;
  uint64_t result;
};

template <bool kProbe, bool kFlag>
void loop_body(void* raw) {
  auto& args = *static_cast<LoopArgs*>(raw);
  uint64_t x = args.result;
  for (int i = 0; i < kIterations; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    if constexpr (kProbe) {
      if constexpr (kFlag) {
        quanta_flag_probe();
      } else {
        quanta_probe();
      }
    }
  }
  args.result = x;
}

template <bool kProbe, bool kFlag>
void BM_Loop(benchmark::State& state) {
  LoopArgs args{kProbe, 1};
  for (auto _ : state) {
    // A deadline an hour away: the probe checks and never fires.
    quanta_fn* f = quanta_fn_launch(&loop_body<kProbe, kFlag>, &args, 3600ull * 3'000'000'000ull, 0);
    quanta_fn_destroy(f);
  }
  benchmark::DoNotOptimize(args.result);
  state.SetItemsProcessed(state.iterations() * kIterations);
}
BENCHMARK(BM_Loop<false, false>)->Name("BM_LoopNoProbe");
BENCHMARK(BM_Loop<true, false>)->Name("BM_LoopClockProbe");
BENCHMARK(BM_Loop<true, true>)->Name("BM_LoopFlagProbe");

}  // namespace
