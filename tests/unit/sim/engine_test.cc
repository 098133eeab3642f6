// The engine's bookkeeping: arrivals as `quanta run` makes them, determinism, every policy
// combination running to completion, overheads charged where docs/sim.md says.
#include "sim/engine.h"
#include "sim_test_helpers.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "batch_means.h"
#include "io/schedule.h"
#include "policy/central_policy.h"
#include "sim/arrivals.h"

namespace quanta {
namespace {

using sim_test::overall;
using sim_test::sim;

SimConfig config(const std::string& workload, unsigned workers, double load, const std::string& local,
                 const std::string& dispatch, uint64_t jobs) {
  SimConfig c;
  c.run.workload = workload;
  c.run.workers = workers;
  c.run.load = load;
  c.run.local_policy = local;
  c.run.dispatch_policy = dispatch;
  c.jobs = jobs;
  return c;
}

TEST(Arrivals, SameAsTheRunsSchedule) {
  const Workload w = Workload::parse("extreme-bimodal");
  const std::vector<Arrival> schedule = make_poisson_schedule(w, {2e6, 0.01, 42});
  PoissonArrivals arrivals(w, 2e6, 42);
  ASSERT_GT(schedule.size(), 10000u);
  for (const Arrival& a : schedule) {
    const Arrival b = arrivals.next();
    ASSERT_EQ(a.arrival_ns, b.arrival_ns);
    ASSERT_EQ(a.service_ns, b.service_ns);
    ASSERT_EQ(a.class_index, b.class_index);
  }
}

TEST(Engine, DeterministicForASeed) {
  for (const char* dispatch : {"jsq", "po2", "steal", "central", "jbsq:2"}) {
    SimConfig c = config("extreme-bimodal", 8, 0.8, "ps", dispatch, 200000);
    c.overheads.quantum_jitter_ns = 300;
    const SimResult a = sim(c), b = sim(c);
    EXPECT_EQ(a.sim.events, b.sim.events) << dispatch;
    EXPECT_EQ(a.run.quanta, b.run.quanta) << dispatch;
    EXPECT_EQ(overall(a).sojourn_ns.mean(), overall(b).sojourn_ns.mean()) << dispatch;
    EXPECT_EQ(overall(a).sojourn_ns.max(), overall(b).sojourn_ns.max()) << dispatch;
    c.run.seed = 2;
    EXPECT_NE(overall(sim(c)).sojourn_ns.mean(), overall(a).sojourn_ns.mean()) << dispatch;
  }
}

TEST(Engine, EveryPolicyCombinationCompletesEveryRequest) {
  std::vector<std::string> dispatches = dispatch_policy_names();
  for (const char* extra : {"central", "jbsq:1", "jbsq:4", "steal"}) dispatches.emplace_back(extra);
  for (const std::string& dispatch : dispatches) {
    for (const char* local : {"ps", "fcfs", "las"}) {
      for (const char* preempt : {"clock", "none"}) {
        SimConfig c = config("high-bimodal", 5, 0.9, local, dispatch, 20000);
        c.run.preempt = preempt;
        c.run.task_slots = 4;  // small: the rings fill and drain
        const SimResult r = sim(c);
        EXPECT_EQ(r.run.completed, 20000u) << dispatch << "/" << local << "/" << preempt;
        EXPECT_EQ(r.run.dispatch.generated, 20000u);
        EXPECT_EQ(overall(r).sojourn_ns.count(), 18000u);  // 10% warm-up
        const bool preempts = std::string(preempt) == "clock" && std::string(local) != "fcfs";
        EXPECT_EQ(overall(r).preemptions > 0, preempts) << dispatch << "/" << local << "/" << preempt;
      }
    }
  }
}

TEST(Engine, DurationModeStopsArrivalsAtTheDuration) {
  SimConfig c = config("exp1", 2, 0.5, "ps", "jsq-msq", 0);
  c.jobs.reset();
  c.run.duration_s = 0.01;  // 1 M rps x 10 ms: about 10 000 arrivals
  const SimResult r = sim(c);
  EXPECT_NEAR(static_cast<double>(r.run.dispatch.generated), 10000, 400);
  EXPECT_EQ(r.run.completed, r.run.dispatch.generated);
  EXPECT_DOUBLE_EQ(r.run.config.duration_s, 0.01);
}

TEST(Engine, JbsqOneIsTheSingleFcfsQueue) {
  // Same arrivals, lowest-index idle worker first in both: the same schedule exactly.
  testing::Collector central, jbsq;
  sim(config("exp1", 4, 0.85, "fcfs", "central", 300000), &central);
  sim(config("exp1", 4, 0.85, "fcfs", "jbsq:1", 300000), &jbsq);
  ASSERT_EQ(central.sojourn.size(), jbsq.sojourn.size());
  EXPECT_EQ(central.sojourn, jbsq.sojourn);
}

TEST(Engine, JbsqOneWithRoundRobinIsCentralizedPs) {
  // Preempted requests go back to the central queue behind the arrivals: JBSQ(1) hands the
  // head to an idle worker exactly as the single shared PS queue does.
  testing::Collector central, jbsq;
  sim(config("extreme-bimodal", 4, 0.8, "ps", "central", 300000), &central);
  sim(config("extreme-bimodal", 4, 0.8, "ps", "jbsq:1", 300000), &jbsq);
  ASSERT_EQ(central.sojourn.size(), jbsq.sojourn.size());
  EXPECT_EQ(central.sojourn, jbsq.sojourn);
}

TEST(Engine, OneWorkerCentralIsTheTwoLevelWorker) {
  testing::Collector central, two_level;
  sim(config("extreme-bimodal", 1, 0.7, "ps", "central", 200000), &central);
  sim(config("extreme-bimodal", 1, 0.7, "ps", "jsq-msq", 200000), &two_level);
  EXPECT_EQ(central.sojourn, two_level.sojourn);
}

TEST(Engine, QuantaAndPreemptionsPerRequest) {
  SimConfig c = config("fixed:10", 1, 0.01, "ps", "jsq-msq", 2000);
  c.run.quantum_us = 2;
  SimResult r = sim(c);
  EXPECT_EQ(r.run.quanta, 2000u * 5);
  EXPECT_EQ(overall(r).preemptions, 1800u * 4);
  c.run.preempt = "none";
  r = sim(c);
  EXPECT_EQ(r.run.quanta, 2000u);
  EXPECT_EQ(overall(r).preemptions, 0u);
}

TEST(Engine, OverheadsAreCharged) {
  // At 1% load requests almost never meet: the sojourn is the service plus the overheads.
  SimConfig c = config("fixed:10", 1, 0.001, "ps", "jsq-msq", 2000);
  c.run.quantum_us = 2;
  const double base = overall(sim(c)).sojourn_ns.min();
  EXPECT_EQ(base, 10000);
  c.overheads.preempt_overhead_ns = 100;  // 4 preemptions
  EXPECT_EQ(overall(sim(c)).sojourn_ns.min(), 10400u);
  c.overheads = {};
  c.overheads.probe_overhead_pct = 10;
  EXPECT_EQ(overall(sim(c)).sojourn_ns.min(), 11000u);
  EXPECT_EQ(overall(sim(c)).slowdown_milli.min(), 1100u);  // slowdown is against the nominal service
  c.overheads = {};
  c.overheads.dispatch_ns = 500;
  EXPECT_EQ(overall(sim(c)).sojourn_ns.min(), 10500u);
  c.overheads = {};
  c.overheads.request_overhead_ns = 300;
  EXPECT_EQ(overall(sim(c)).sojourn_ns.min(), 10300u);
  c.overheads = {};
  c.overheads.quantum_jitter_ns = 2000;  // longer quanta: fewer preemptions
  const SimResult jittered = sim(c);
  EXPECT_LT(overall(jittered).preemptions, 1800u * 4);
  EXPECT_EQ(overall(jittered).sojourn_ns.min(), 10000u);
}

TEST(Engine, DispatcherCostLimitsThroughput) {
  // 16 workers of 1 µs requests at 80% load offer 12.8 M rps; a dispatcher at 100 ns per
  // request serves 10 M rps, so requests queue in front of it and arrive late.
  SimConfig c = config("fixed1", 16, 0.8, "fcfs", "jsq-msq", 200000);
  c.overheads.dispatch_ns = 100;
  const SimResult r = sim(c);
  EXPECT_GT(r.run.dispatch.late_arrivals, 1000u);
  EXPECT_GT(overall(r).sojourn_ns.mean(), 10000);
}

TEST(Engine, FullRingsDropOrCount) {
  SimConfig c = config("exp1", 2, 1.5, "fcfs", "random", 50000);
  c.run.task_slots = 2;
  c.run.ring_capacity = 8;
  c.run.on_full = "drop";
  SimResult r = sim(c);
  EXPECT_GT(r.run.dispatch.dropped, 0u);
  EXPECT_EQ(r.run.completed + r.run.dispatch.dropped, 50000u);
  c.run.on_full = "wait";
  r = sim(c);
  EXPECT_EQ(r.run.dispatch.dropped, 0u);
  EXPECT_GT(r.run.dispatch.full_ring_waits, 0u);
  EXPECT_EQ(r.run.completed, 50000u);
}

TEST(Engine, CentralSlotsDropOrCount) {
  // The central dispatcher's task_slots x workers slots, as in the runtime: beyond them an
  // arrival is dropped (--on-full drop) or waits (counted).
  for (const char* dispatch : {"central", "jbsq:2"}) {
    SimConfig c = config("exp1", 2, 1.5, "ps", dispatch, 50000);
    c.run.task_slots = 2;
    c.run.on_full = "drop";
    SimResult r = sim(c);
    EXPECT_GT(r.run.dispatch.dropped, 0u) << dispatch;
    EXPECT_EQ(r.run.completed + r.run.dispatch.dropped, 50000u) << dispatch;
    EXPECT_LE(r.sim.peak_in_system, 2u * 2 + 1) << dispatch;  // the arrival being refused included
    c.run.on_full = "wait";
    r = sim(c);
    EXPECT_EQ(r.run.dispatch.dropped, 0u) << dispatch;
    EXPECT_GT(r.run.dispatch.full_ring_waits, 0u) << dispatch;
    EXPECT_EQ(r.run.completed, 50000u) << dispatch;
    c.run.load = 0.3;
    c.run.task_slots = 64;
    EXPECT_EQ(sim(c).run.dispatch.full_ring_waits, 0u) << dispatch;
  }
}

TEST(Engine, StealingBeatsRandomPlacement) {
  const double random = overall(sim(config("exp1", 8, 0.8, "fcfs", "random", 200000))).sojourn_ns.mean();
  const double steal = overall(sim(config("exp1", 8, 0.8, "fcfs", "steal", 200000))).sojourn_ns.mean();
  const double central = overall(sim(config("exp1", 8, 0.8, "fcfs", "central", 200000))).sojourn_ns.mean();
  EXPECT_LT(steal, 0.6 * random);
  EXPECT_GE(steal, central * 0.99);  // a central queue is the best a non-clairvoyant FCFS can do
}

TEST(Engine, BadConfigsThrow) {
  SimConfig c = config("exp1", 0, 0.5, "ps", "jsq-msq", 10);
  EXPECT_THROW(sim(c), std::invalid_argument);
  c.run.workers = 1;
  c.run.dispatch_policy = "jbsq:0";
  EXPECT_THROW(sim(c), std::invalid_argument);
  c.run.dispatch_policy = "jsq";
  c.run.local_policy = "srpt";
  EXPECT_THROW(sim(c), std::invalid_argument);
}

}  // namespace
}  // namespace quanta
