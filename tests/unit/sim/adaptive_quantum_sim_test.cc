// The simulator under --quantum-us adaptive:MIN:MAX: the controller decides once per
// period, sees what the period held, and the quanta that follow have its length. Fixed
// seeds: deterministic counts and values.
#include <gtest/gtest.h>

#include <string>

#include "sim/engine.h"
#include "sim_test_helpers.h"

namespace quanta {
namespace {

using sim_test::sim;

SimConfig adaptive(double load, double first_quantum_us, const std::string& workload = "extreme-bimodal") {
  SimConfig c;
  c.run.workload = workload;  // extreme-bimodal: 99.5% of 0.5 us, 0.5% of 500 us
  c.run.workers = 1;
  c.run.load = load;
  c.run.duration_s = 1.0;
  c.run.quantum_us = first_quantum_us;
  AdaptiveQuantumParams a;
  a.min_us = 2;
  a.max_us = 50;  // k1 = k2 = 12, k3 = 6
  a.period_s = 0.1;
  c.run.adaptive_quantum = a;
  return c;
}

TEST(AdaptiveQuantumSim, DecidesOncePerPeriodAndClimbsToTheMaximumWhenIdle) {
  // Equal service times: latencies with no heavy tail, so low load alone moves it.
  const SimResult r = sim(adaptive(0.05, 2, "fixed:1"));
  const auto& series = r.run.quantum_series;
  ASSERT_GE(series.size(), 9u);
  ASSERT_LE(series.size(), 10u);
  double before = 2;
  for (std::size_t i = 0; i < series.size(); ++i) {
    EXPECT_NEAR(series[i].at_s, 0.1 * static_cast<double>(i + 1), 1e-9);
    EXPECT_TRUE(series[i].decision.low_load) << i << ": load " << series[i].inputs.load;
    EXPECT_FALSE(series[i].decision.heavy_tail) << i << ": tail index " << series[i].decision.tail_index;
    EXPECT_DOUBLE_EQ(series[i].decision.quantum_us, std::min(50.0, before + 6)) << i;
    before = series[i].decision.quantum_us;
  }
  EXPECT_DOUBLE_EQ(series.back().decision.quantum_us, 50);
}

TEST(AdaptiveQuantumSim, FallsToTheMinimumUnderHighLoad) {
  const SimResult r = sim(adaptive(0.95, 50));
  const auto& series = r.run.quantum_series;
  ASSERT_FALSE(series.empty());
  EXPECT_TRUE(series.front().decision.high_load);
  EXPECT_GT(series.front().inputs.load, 0.9);
  EXPECT_DOUBLE_EQ(series.back().decision.quantum_us, 2);
}

TEST(AdaptiveQuantumSim, TheQuantaFollowTheController) {
  // Under high load the controller holds 2 us quanta after its first decisions; a run
  // fixed at 50 us preempts the 500 us requests far fewer times.
  SimConfig fixed = adaptive(0.95, 50);
  fixed.run.adaptive_quantum.reset();
  const SimResult moved = sim(adaptive(0.95, 50));
  const SimResult held = sim(fixed);
  EXPECT_TRUE(held.run.quantum_series.empty());
  // The long requests' preemptions (class 1): ~10 each in 50 us quanta, ~250 in 2 us.
  EXPECT_GT(moved.run.classes[1].preemptions, 5 * held.run.classes[1].preemptions);
}

TEST(AdaptiveQuantumSim, ANonPositivePeriodIsRefused) {
  SimConfig c = adaptive(0.5, 10);
  c.run.adaptive_quantum->period_s = 0;
  EXPECT_THROW(sim(c), std::invalid_argument);
}

}  // namespace
}  // namespace quanta
