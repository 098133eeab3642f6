// LibPreemptible's Algorithm 1, as decisions on given inputs (policy/adaptive_quantum.h).
#include "policy/adaptive_quantum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace quanta {
namespace {

AdaptiveQuantumParams params() {
  AdaptiveQuantumParams p;
  p.min_us = 2;
  p.max_us = 50;  // k1 = k2 = 12, k3 = 6
  return p;
}

// Median and p99 of a mild, light-tailed latency distribution (exponential: p99/p50 = 6.6).
AdaptiveQuantumInputs light(double load, double queue = 0) { return {load, queue, 10.0, 66.4}; }

TEST(AdaptiveQuantum, HighLoadShrinksByK1AndStopsAtTheMinimum) {
  const AdaptiveQuantumParams p = params();
  AdaptiveQuantumDecision d = decide_quantum(p, 30, light(0.95));
  EXPECT_TRUE(d.high_load);
  EXPECT_FALSE(d.heavy_tail);
  EXPECT_DOUBLE_EQ(d.quantum_us, 18);
  d = decide_quantum(p, 5, light(0.95));
  EXPECT_DOUBLE_EQ(d.quantum_us, 2) << "never below the minimum";
}

TEST(AdaptiveQuantum, ALongQueueOrAHeavyTailShrinksByK2) {
  const AdaptiveQuantumParams p = params();
  AdaptiveQuantumDecision d = decide_quantum(p, 30, light(0.5, 9));
  EXPECT_TRUE(d.long_queue);
  EXPECT_DOUBLE_EQ(d.quantum_us, 18);
  // p99 / p50 = 50 fits alpha = 1: a heavy tail.
  d = decide_quantum(p, 30, {0.5, 0, 10.0, 500.0});
  EXPECT_NEAR(d.tail_index, 1.0, 1e-12);
  EXPECT_TRUE(d.heavy_tail);
  EXPECT_DOUBLE_EQ(d.quantum_us, 18);
  // Both halves of the rule together still shrink once.
  d = decide_quantum(p, 30, {0.5, 9, 10.0, 500.0});
  EXPECT_DOUBLE_EQ(d.quantum_us, 18);
}

TEST(AdaptiveQuantum, HighLoadAndAHeavyTailShrinkTwice) {
  const AdaptiveQuantumDecision d = decide_quantum(params(), 40, {0.95, 0, 10.0, 500.0});
  EXPECT_TRUE(d.high_load && d.heavy_tail);
  EXPECT_DOUBLE_EQ(d.quantum_us, 16);
}

TEST(AdaptiveQuantum, LowLoadGrowsByK3AndStopsAtTheMaximum) {
  const AdaptiveQuantumParams p = params();
  AdaptiveQuantumDecision d = decide_quantum(p, 30, light(0.05));
  EXPECT_TRUE(d.low_load);
  EXPECT_DOUBLE_EQ(d.quantum_us, 36);
  d = decide_quantum(p, 48, light(0.05));
  EXPECT_DOUBLE_EQ(d.quantum_us, 50) << "never above the maximum";
}

TEST(AdaptiveQuantum, MiddleLoadWithALightTailKeepsTheQuantum) {
  const AdaptiveQuantumDecision d = decide_quantum(params(), 30, light(0.5, 3));
  EXPECT_FALSE(d.high_load || d.long_queue || d.heavy_tail || d.low_load);
  EXPECT_DOUBLE_EQ(d.quantum_us, 30);
}

TEST(AdaptiveQuantum, TheTailIndexOfAParetoTail) {
  // Pareto with alpha = 1.5: p50 = 2^(1/1.5), p99 = 100^(1/1.5) (scale 1).
  EXPECT_NEAR(pareto_tail_index(std::pow(2.0, 1 / 1.5), std::pow(100.0, 1 / 1.5)), 1.5, 1e-9);
  EXPECT_TRUE(std::isinf(pareto_tail_index(10, 10))) << "no spread: no tail to fit";
  EXPECT_TRUE(std::isinf(pareto_tail_index(0, 10)));
}

TEST(AdaptiveQuantum, SpecsAreParsedOrRefusedNamingWhatIsWrong) {
  const AdaptiveQuantumParams p = parse_adaptive_quantum("adaptive:3:50");
  EXPECT_DOUBLE_EQ(p.min_us, 3);
  EXPECT_DOUBLE_EQ(p.max_us, 50);
  EXPECT_TRUE(is_adaptive_quantum_spec("adaptive:3:50"));
  EXPECT_FALSE(is_adaptive_quantum_spec("5"));
  for (const char* bad : {"adaptive:", "adaptive:3", "adaptive:50:3", "adaptive:3:3", "adaptive:x:50",
                          "adaptive:3:nan", "adaptive:0:50", "adaptive:3:1e300", "adaptive:3:50:7"}) {
    EXPECT_THROW(parse_adaptive_quantum(bad), std::invalid_argument) << bad;
  }
  try {
    parse_adaptive_quantum("adaptive:50:3");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("MIN must be below MAX"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace quanta
