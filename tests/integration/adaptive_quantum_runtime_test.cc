// LibPreemptible's adaptive quantum running in the runtime (runtime/run_sampler.h), through
// the public API: the controller decides once a period, climbs to MAX when the runtime is
// idle and falls to MIN when the workers are saturated. Driven by load (an idle runtime;
// every in-flight slot kept full), judged by counts and the order of decisions, never by
// latencies.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "quanta/runtime.h"

namespace {

// Spins for the cycles in its payload, with probes.
void spin(const quanta_request* request, quanta_response*) {
  uint64_t cycles = 0;
  std::memcpy(&cycles, request->payload, sizeof cycles);
  while (quanta_task_cpu_cycles() < cycles) {
    quanta_probe();
    quanta_flag_probe();
  }
}

quanta_app spin_app() {
  quanta_app app{};
  app.abi_version = QUANTA_APP_ABI_VERSION;
  app.name = "adaptive-spin";
  app.handle_request = spin;
  return app;
}

quanta_runtime_options options(const char* adaptive, double first_quantum_us) {
  quanta_runtime_options o;
  quanta_runtime_options_init(&o);
  o.adaptive_quantum = adaptive;
  o.quantum_us = first_quantum_us;
  o.max_in_flight = 256;
  o.max_payload_bytes = 64;
  o.max_response_bytes = 16;
  return o;
}

// Waits, doing `work` in between, until the runtime's quantum is `wanted` (or 60 s pass: a
// generous bound for a busy machine; the test then fails on the quantum, not on time).
template <typename Work>
bool quantum_reaches(quanta_runtime* rt, double wanted, Work work) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  double now_us = 0;
  while (std::chrono::steady_clock::now() < give_up) {
    EXPECT_EQ(quanta_runtime_quantum(rt, &now_us), QUANTA_OK) << quanta_last_error();
    if (std::fabs(now_us - wanted) < 0.01) return true;
    work();
  }
  return false;
}

std::vector<quanta_quantum_decision> decisions_of(quanta_runtime* rt) {
  const int n = quanta_runtime_quantum_decisions(rt, nullptr, 0);
  EXPECT_GE(n, 0) << quanta_last_error();
  std::vector<quanta_quantum_decision> series(static_cast<std::size_t>(std::max(n, 0)));
  EXPECT_EQ(quanta_runtime_quantum_decisions(rt, series.data(), static_cast<uint32_t>(series.size())), n);
  return series;
}

// Decisions fall on period ends, in order: at_s a whole number of periods, increasing.
void expect_on_period_ends(const std::vector<quanta_quantum_decision>& series, double period_s) {
  for (std::size_t i = 0; i < series.size(); ++i) {
    const double periods = series[i].at_s / period_s;
    EXPECT_NEAR(periods, std::round(periods), 1e-6) << "decision " << i;
    if (i > 0) EXPECT_GT(series[i].at_s, series[i - 1].at_s) << "decision " << i;
  }
}

TEST(AdaptiveQuantumRuntime, AnIdleRuntimesQuantumClimbsToMaxOneStepAPeriod) {
  const quanta_app app = spin_app();
  // Starts at MIN; low load (nothing runs) adds k3 = (50 - 2) / 8 = 6 us a period.
  const quanta_runtime_options o = options("adaptive:2:50:period_s=0.01", 2);
  quanta_runtime* rt = nullptr;
  ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
  double first = 0;
  ASSERT_EQ(quanta_runtime_quantum(rt, &first), QUANTA_OK);
  // It starts at MIN, but a slow build (ASan, TSan) may pass a period end before this read:
  // the quantum is then a step or more up the ladder 2 + 6k, never off it.
  const double steps = (first - 2) / 6;
  EXPECT_GE(steps, -0.01);
  EXPECT_NEAR(6 * steps, 6 * std::round(steps), 0.01) << first;
  EXPECT_TRUE(quantum_reaches(rt, 50, [] { std::this_thread::sleep_for(std::chrono::milliseconds(5)); }));
  EXPECT_EQ(quanta_runtime_quantum_decisions(rt, nullptr, 0), QUANTA_ERR_STATE);  // not before stop
  ASSERT_EQ(quanta_runtime_stop(rt, nullptr), QUANTA_OK) << quanta_last_error();
  const std::vector<quanta_quantum_decision> series = decisions_of(rt);
  ASSERT_GE(series.size(), 8u);  // 2 + 8 x 6 = 50
  expect_on_period_ends(series, 0.01);
  double before = 2;
  for (const quanta_quantum_decision& d : series) {
    EXPECT_EQ(d.rules, static_cast<uint32_t>(QUANTA_RULE_LOW_LOAD));
    EXPECT_EQ(d.load, 0);
    EXPECT_EQ(d.queue_per_worker, 0);
    EXPECT_TRUE(std::isinf(d.tail_index));  // nothing finished: no tail to fit
    EXPECT_NEAR(d.quantum_us, std::min(before + 6, 50.0), 1e-9);
    before = d.quantum_us;
  }
  EXPECT_EQ(series.back().quantum_us, 50);
  quanta_runtime_destroy(rt);
}

TEST(AdaptiveQuantumRuntime, ASaturatedRuntimesQuantumFallsToMin) {
  const quanta_app app = spin_app();
  const quanta_runtime_options o = options("adaptive:2:50:period_s=0.01", 50);
  quanta_runtime* rt = nullptr;
  ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
  // Every in-flight slot full all the time: the workers never idle, 200 requests wait.
  const uint64_t cycles = static_cast<uint64_t>(quanta_tsc_per_us() * 100);
  uint64_t submitted = 0, completed = 0;
  quanta_completion done[64];
  auto keep_full = [&] {
    while (quanta_runtime_submit(rt, &cycles, sizeof cycles, 0, submitted) == QUANTA_OK) ++submitted;
    const int n = quanta_runtime_poll(rt, done, 64);
    ASSERT_GE(n, 0) << quanta_last_error();
    completed += static_cast<uint64_t>(n);
  };
  EXPECT_TRUE(quantum_reaches(rt, 2, keep_full));
  // A program cannot set the quantum the controller owns.
  EXPECT_EQ(quanta_runtime_set_quantum(rt, 10), QUANTA_ERR_STATE);
  EXPECT_NE(std::string(quanta_last_error()).find("adaptive"), std::string::npos) << quanta_last_error();
  quanta_run_stats stats;
  ASSERT_EQ(quanta_runtime_stop(rt, &stats), QUANTA_OK) << quanta_last_error();
  EXPECT_EQ(stats.completed, submitted);
  const std::vector<quanta_quantum_decision> series = decisions_of(rt);
  ASSERT_GE(series.size(), 2u);  // 50 - 2 x 12 ... at least two steps down
  expect_on_period_ends(series, 0.01);
  // Every step down had a reason, and the quantum never rose while requests waited.
  double before = 50;
  bool reached_min = false;
  for (const quanta_quantum_decision& d : series) {
    if (d.quantum_us < before) {
      EXPECT_NE(d.rules & (QUANTA_RULE_HIGH_LOAD | QUANTA_RULE_LONG_QUEUE | QUANTA_RULE_HEAVY_TAIL), 0u);
    }
    if (!reached_min) EXPECT_LE(d.quantum_us, before);
    if (d.quantum_us == 2) reached_min = true;
    before = d.quantum_us;
  }
  EXPECT_TRUE(reached_min);
  quanta_runtime_destroy(rt);
}

TEST(AdaptiveQuantumRuntime, BadSpecsAreRefusedByName) {
  const quanta_app app = spin_app();
  for (const char* spec : {"adaptive:5", "adaptive:50:2", "adaptive:2:50:k9=1", "adaptive:x:50", "fixed:2"}) {
    const quanta_runtime_options o = options(spec, 2);
    quanta_runtime* rt = nullptr;
    EXPECT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_ERR_INVALID) << spec;
    EXPECT_EQ(rt, nullptr);
    EXPECT_NE(std::string(quanta_last_error()).find("adaptive_quantum"), std::string::npos) << quanta_last_error();
  }
  // Without the controller there are no decisions, and the quantum is the one set.
  const quanta_runtime_options o = options(nullptr, 7);
  quanta_runtime* rt = nullptr;
  ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
  double q = 0;
  ASSERT_EQ(quanta_runtime_quantum(rt, &q), QUANTA_OK);
  EXPECT_NEAR(q, 7, 0.01);
  ASSERT_EQ(quanta_runtime_stop(rt, nullptr), QUANTA_OK);
  EXPECT_EQ(quanta_runtime_quantum_decisions(rt, nullptr, 0), 0);
  quanta_runtime_destroy(rt);
}

}  // namespace
