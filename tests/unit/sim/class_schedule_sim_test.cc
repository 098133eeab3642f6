// LC/BE scheduling classes on simulated workers (--class-schedule): latency-critical
// requests run before best-effort ones, a BE bandwidth takes its share back from them, a
// capped BE class never exceeds it. Fixed seeds: deterministic.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "sim/engine.h"
#include "sim_test_helpers.h"

namespace quanta {
namespace {

using sim_test::sim;

// Class 0: 1 us requests (LC), class 1: 1 ms requests (BE), load 0.7 on one worker.
SimResult run(const std::string& schedule) {
  SimConfig c;
  c.run.workload = "bimodal:90:1:1000";
  c.run.workers = 1;
  c.run.load = 0.7;
  c.run.quantum_us = 5;
  c.run.duration_s = 2;
  c.run.class_schedule = schedule;
  return sim(c);
}

double short_p99_ns(const SimResult& r) { return static_cast<double>(r.run.classes[0].sojourn_ns.value_at_percentile(99)); }

TEST(ClassScheduleSim, LatencyCriticalFirstCutsTheShortRequestsTail) {
  const SimResult plain = run("");
  const SimResult classed = run("lc,be");
  EXPECT_EQ(classed.run.completed, plain.run.completed);
  EXPECT_LT(short_p99_ns(classed) * 3, short_p99_ns(plain)) << "LC no longer waits behind BE quanta";
}

TEST(ClassScheduleSim, ABestEffortBudgetTakesItsShareWhileLatencyCriticalWorkWaits) {
  const SimResult strict = run("lc,be");
  const SimResult budget = run("lc,be:20/100");
  EXPECT_GT(short_p99_ns(budget), short_p99_ns(strict)) << "BE runs on its budget ahead of waiting LC requests";
}

TEST(ClassScheduleSim, ACappedBestEffortClassCannotKeepUpWithMoreThanItsBudget) {
  // BE offers ~0.69 of the CPU and may use 0.2: its requests queue far longer.
  const SimResult open = run("lc,be:20/100");
  const SimResult capped = run("lc,be:20/100:cap");
  EXPECT_GT(capped.run.classes[1].sojourn_ns.mean(), 10 * open.run.classes[1].sojourn_ns.mean());
}

TEST(ClassScheduleSim, NeedsTwoLevelDispatch) {
  SimConfig c;
  c.run.workers = 1;
  c.run.dispatch_policy = "central";
  c.run.class_schedule = "lc,be";
  c.jobs = 10;
  EXPECT_THROW(sim(c), std::invalid_argument);
}

}  // namespace
}  // namespace quanta
