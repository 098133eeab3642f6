// The dispatcher's own work in the engine: the time it spends taking preempted quanta back
// into a central queue (--requeue-ns), and the requests it runs itself between dispatch
// decisions (--dispatcher-works, Concord's work-conserving dispatcher).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "sim/engine.h"
#include "sim_test_helpers.h"

namespace quanta {
namespace {

using sim_test::overall;
using sim_test::sim;

SimConfig config(const std::string& workload, unsigned workers, double load, const std::string& dispatch,
                 uint64_t jobs) {
  SimConfig c;
  c.run.workload = workload;
  c.run.workers = workers;
  c.run.load = load;
  c.run.dispatch_policy = dispatch;
  c.run.quantum_us = 2;
  c.jobs = jobs;
  return c;
}

std::string error_of(const SimConfig& c) {
  try {
    sim(c);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(Requeue, CentralWorkersWaitForTheDispatcherAtEveryPreemption) {
  // An isolated 10 us request, 2 us quanta: 4 preemptions, each a round trip of 300 ns
  // through the dispatcher under central, jbsq:K and steal; none under two-level dispatch,
  // where the worker requeues its own task.
  for (const char* dispatch : {"central", "jbsq:1", "jbsq:2", "steal"}) {
    SimConfig c = config("fixed:10", 1, 0.001, dispatch, 2000);
    c.overheads.requeue_ns = 300;
    const SimResult r = sim(c);
    EXPECT_EQ(overall(r).sojourn_ns.min(), 10000u + 4 * 300) << dispatch;
    EXPECT_EQ(r.run.requeued, 2000u * 4) << dispatch;
  }
  SimConfig c = config("fixed:10", 1, 0.001, "jsq-msq", 2000);
  c.overheads.requeue_ns = 300;
  const SimResult r = sim(c);
  EXPECT_EQ(overall(r).sojourn_ns.min(), 10000u);
  EXPECT_EQ(r.run.requeued, 0u);
}

TEST(Requeue, OneDispatcherServesEveryWorkersRequeues) {
  // 8 workers of 10 us requests in 0.5 us quanta at load 0.8: 12.2 M requeues a second. At
  // 100 ns each that is more than one dispatcher can do; the workers, each waiting for its
  // own, queue at the dispatcher, and their quanta are spaced further apart than 100 ns.
  SimConfig c = config("fixed:10", 8, 0.8, "central", 100000);
  c.run.quantum_us = 0.5;
  const SimResult free_requeues = sim(c);
  c.overheads.requeue_ns = 100;
  const SimResult costly = sim(c);
  // On one worker alone the same cost adds 19 x 100 ns to each request's 10 us.
  SimConfig one = c;
  one.run.workers = 1;
  const SimResult alone = sim(one);
  EXPECT_EQ(costly.run.requeued, 100000u * 19);
  EXPECT_EQ(costly.run.completed, 100000u);
  EXPECT_GT(overall(costly).sojourn_ns.mean(), 2 * overall(free_requeues).sojourn_ns.mean());
  EXPECT_GT(overall(costly).sojourn_ns.min(), overall(alone).sojourn_ns.min());
  EXPECT_EQ(overall(alone).sojourn_ns.min(), 10000u + 19 * 100);
}

TEST(DispatcherWorks, TheDispatcherCompletesRequestsWhenWorkersAreFull) {
  for (const char* dispatch : {"central", "jbsq:2"}) {
    // flag: the worker's quanta end by the monitor's flag, the dispatcher's own by the clock.
    for (const char* preempt : {"clock", "hybrid", "flag"}) {
      SimConfig c = config("extreme-bimodal", 1, 0.9, dispatch, 100000);
      c.run.preempt = preempt;
      c.run.seed = 5;
      const SimResult alone = sim(c);
      c.run.dispatcher_works = true;
      const SimResult helped = sim(c);
      EXPECT_EQ(alone.run.dispatcher_requests, 0u);
      EXPECT_GT(helped.run.dispatcher_requests, 100u) << dispatch << "/" << preempt;
      EXPECT_EQ(helped.run.completed, 100000u);
      // A second CPU's worth of work when the worker is full: shorter sojourns.
      EXPECT_LT(overall(helped).sojourn_ns.mean(), overall(alone).sojourn_ns.mean()) << dispatch << "/" << preempt;
      EXPECT_EQ(sim(c).run.dispatcher_requests, helped.run.dispatcher_requests);  // deterministic
    }
  }
}

TEST(DispatcherWorks, ArrivalsWaitForTheDispatchersQuantum) {
  // While the dispatcher runs a 50 us quantum of its own request, arrivals are not
  // dispatched: some of them are late by more than 1 us.
  SimConfig c = config("exp:50", 1, 0.95, "central", 50000);
  c.run.quantum_us = 50;
  c.run.dispatcher_works = true;
  const SimResult r = sim(c);
  EXPECT_GT(r.run.dispatcher_requests, 0u);
  EXPECT_GT(r.run.dispatch.late_arrivals, 0u);
}

TEST(DispatcherWorks, RefusedWhereTheRuntimeRefusesIt) {
  SimConfig c = config("exp1", 2, 0.5, "jsq-msq", 1000);
  c.run.dispatcher_works = true;
  EXPECT_NE(error_of(c).find("--dispatcher-works"), std::string::npos);
  c.run.dispatch_policy = "steal";
  EXPECT_NE(error_of(c).find("--dispatcher-works"), std::string::npos);
  c.run.dispatch_policy = "central";
  c.run.preempt = "signal";
  EXPECT_NE(error_of(c).find("--dispatcher-works"), std::string::npos);
  c.run.preempt = "none";
  EXPECT_NE(error_of(c).find("--dispatcher-works"), std::string::npos);
  for (const char* preempt : {"clock", "hybrid", "flag"}) {
    c.run.preempt = preempt;
    EXPECT_EQ(error_of(c), "no error") << preempt;
  }
}

}  // namespace
}  // namespace quanta
