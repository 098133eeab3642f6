// Each preemption mechanism in the engine, with its own costs: exact figures for an
// isolated request (at 0.1% load requests almost never meet, so a request's sojourn is its
// own quanta), and the direction of the effect under load. Fixed seeds: deterministic.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "sim/engine.h"
#include "sim_test_helpers.h"

namespace quanta {
namespace {

using sim_test::overall;
using sim_test::sim;

SimConfig isolated(const std::string& preempt) {
  SimConfig c;
  c.run.workload = "fixed:10";
  c.run.workers = 1;
  c.run.load = 0.001;
  c.run.quantum_us = 2;
  c.run.preempt = preempt;
  c.jobs = 2000;
  return c;
}

TEST(Mechanisms, WithoutCostsFlagAndSignalAreClock) {
  // A monitor that polls at once and a flag or signal that arrives at once end each
  // quantum exactly where a clock probe does.
  const SimResult clock = sim(isolated("clock"));
  for (const char* m : {"flag", "signal", "hybrid"}) {
    const SimResult r = sim(isolated(m));
    EXPECT_EQ(r.run.quanta, clock.run.quanta) << m;
    EXPECT_EQ(overall(r).sojourn_ns.mean(), overall(clock).sojourn_ns.mean()) << m;
  }
}

// The minimum sojourn is an isolated request's (at 0.1% load a few of 2000 meet another).
TEST(Mechanisms, FlagNotificationLengthensEveryQuantumByIt) {
  // 10 us of work in 2 us quanta: 5 quanta with clock; with L = 500 ns each preempted
  // quantum does 2.5 us, so 4 quanta, and the work is not lost: the sojourn stays 10 us.
  SimConfig c = isolated("flag");
  c.overheads.flag_notification_ns = 500;
  c.overheads.preempt_overhead_ns = 100;
  const SimResult r = sim(c);
  EXPECT_EQ(r.run.quanta, 2000u * 4);
  EXPECT_EQ(overall(r).preemptions, 1800u * 3);
  EXPECT_EQ(overall(r).sojourn_ns.min(), 10000u + 3 * 100);
  EXPECT_EQ(r.run.monitor_actions, 2000u * 4);  // the last quantum was flagged too, and finished first
  EXPECT_EQ(r.run.signals_received, 0u);
}

TEST(Mechanisms, FlagWaitsForTheMonitorsPoll) {
  // A monitor that looks once a millisecond lets nearly every 10 us request run to the end
  // in one quantum: only those whose life crosses a poll are preempted.
  SimConfig c = isolated("flag");
  c.overheads.monitor_poll_ns = 1e6;
  const SimResult r = sim(c);
  EXPECT_LT(overall(r).preemptions, 1800u / 20);
  EXPECT_GT(r.run.quanta, 2000u);  // but some are
  EXPECT_LT(r.run.quanta, 2000u * 5);
}

TEST(Mechanisms, SignalCostsTheWorkerItsCpuPerSignal) {
  // Quanta of 2 us then 600 ns until the kernel takes the CPU (latency 1000 - CPU 400):
  // 2.6 us of work each, three preempted and a fourth of 2.2 us that finishes while its
  // signal travels; every signal costs 400 ns, the stale one too.
  SimConfig c = isolated("signal");
  c.overheads.signal_latency_ns = 1000;
  c.overheads.signal_cpu_ns = 400;
  const SimResult r = sim(c);
  EXPECT_EQ(r.run.quanta, 2000u * 4);
  EXPECT_EQ(r.run.signals_received, 2000u * 4);
  EXPECT_EQ(r.run.signal_switches, 2000u * 3);
  EXPECT_EQ(overall(r).sojourn_ns.min(), 3u * (2600 + 400) + 2200);
  // (The stale signal's CPU comes after the request finished: not in its sojourn.)
}

TEST(Mechanisms, UnderLoadSignalCostsSlowRequestsDownAndFlagLatencyLengthensQuanta) {
  SimConfig c;
  c.run.workload = "extreme-bimodal";
  c.run.workers = 2;
  c.run.load = 0.7;
  c.run.quantum_us = 2;
  c.run.seed = 3;
  c.jobs = 200000;
  c.overheads.preempt_overhead_ns = 50;
  c.overheads.flag_notification_ns = 300;
  c.overheads.signal_latency_ns = 1000;
  c.overheads.signal_cpu_ns = 500;
  c.overheads.monitor_poll_ns = 100;
  c.run.preempt = "clock";
  const SimResult clock = sim(c);
  c.run.preempt = "flag";
  const SimResult flag = sim(c);
  c.run.preempt = "signal";
  const SimResult signal = sim(c);
  c.run.preempt = "hybrid";
  const SimResult hybrid = sim(c);
  // Longer quanta under flag: fewer of them for the same work.
  EXPECT_LT(flag.run.quanta, clock.run.quanta);
  // Each signal takes 0.5 us of the worker's CPU (a fifth more per quantum of work): the
  // long requests' slowdown grows.
  EXPECT_GT(signal.run.classes[1].slowdown_milli.mean(), 1.2 * clock.run.classes[1].slowdown_milli.mean());
  EXPECT_GT(signal.run.signal_switches, 0u);
  // Hybrid with the 100 us backstop and no probe gaps: exactly clock.
  EXPECT_EQ(hybrid.run.quanta, clock.run.quanta);
  EXPECT_EQ(overall(hybrid).sojourn_ns.mean(), overall(clock).sojourn_ns.mean());
  EXPECT_EQ(hybrid.run.signals_received, 0u);
  // Every request completes under each.
  for (const SimResult* r : {&clock, &flag, &signal, &hybrid}) EXPECT_EQ(r->run.completed, 200000u);
}

TEST(Mechanisms, HybridBackstopCutsQuantaLongerThanIt) {
  // Probes that see the end of a quantum up to tens of us late (jitter sigma 20 us): the
  // backstop signal at 5 us ends the quanta that would run past it.
  SimConfig c = isolated("clock");
  c.run.workload = "fixed:200";
  c.overheads.quantum_jitter_ns = 20000;
  c.overheads.signal_latency_ns = 500;
  c.overheads.signal_cpu_ns = 200;
  const SimResult clock = sim(c);
  c.run.preempt = "hybrid";
  c.run.backstop_us = 5;
  const SimResult hybrid = sim(c);
  EXPECT_GT(hybrid.run.signal_switches, 0u);
  EXPECT_GT(hybrid.run.quanta, clock.run.quanta);  // shorter quanta, more of them
  EXPECT_EQ(clock.run.signals_received, 0u);
}

TEST(Mechanisms, DeterministicForASeed) {
  for (const char* m : {"flag", "signal", "hybrid"}) {
    SimConfig c;
    c.run.workload = "high-bimodal";
    c.run.workers = 4;
    c.run.load = 0.8;
    c.run.preempt = m;
    c.run.dispatch_policy = "jbsq:2";
    c.run.backstop_us = 3;
    c.jobs = 50000;
    c.overheads.quantum_jitter_ns = 1000;
    c.overheads.flag_notification_ns = 200;
    c.overheads.signal_latency_ns = 800;
    c.overheads.signal_cpu_ns = 300;
    c.overheads.monitor_poll_ns = 70;
    c.overheads.dispatch_ns = 40;
    c.overheads.requeue_ns = 60;
    const SimResult a = sim(c), b = sim(c);
    EXPECT_EQ(a.run.quanta, b.run.quanta) << m;
    EXPECT_EQ(a.run.monitor_actions, b.run.monitor_actions) << m;
    EXPECT_EQ(overall(a).sojourn_ns.mean(), overall(b).sojourn_ns.mean()) << m;
    EXPECT_EQ(a.run.completed, 50000u) << m;
  }
}

TEST(Mechanisms, StallsAreReplayedOnlyOnTheClockPath) {
  SimConfig c = isolated("flag");
  auto trace = std::make_shared<StallTrace>();
  trace->period_ns = 1e6;
  trace->cpus.push_back({StallSpan{100.0, 50.0}});
  c.stalls = trace;
  try {
    sim(c);
    FAIL() << "flag with --stalls ran";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--stalls"), std::string::npos);
  }
  c.run.preempt = "clock";
  EXPECT_EQ(sim(c).run.completed, 2000u);
}

}  // namespace
}  // namespace quanta
