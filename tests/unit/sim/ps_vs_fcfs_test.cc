// Processor sharing protects short requests from long ones; FCFS does not. Checked on the
// simulator, which runs the runtime's own local policies (src/policy/) on simulated time:
// no host stalls, no timing, the same counts for a seed on any machine. The real-time
// comparison on this VM is a benchmark (bench/ps_vs_fcfs.py), not a test.
#include <gtest/gtest.h>

#include <string>

#include "sim/engine.h"

namespace quanta {
namespace {

SimResult run(const std::string& workload, const std::string& local, double quantum_us) {
  SimConfig c;
  c.run.workload = workload;
  c.run.workers = 1;
  c.run.load = 0.5;
  c.run.local_policy = local;
  c.run.quantum_us = quantum_us;
  c.run.seed = 5;
  c.jobs = 400000;
  return simulate(c, Workload::parse(workload));
}

// extreme-bimodal (99.5% 0.5 us, 0.5% 500 us) at load 0.5: a long request holds the worker
// about 40% of the time, so under FCFS a large share of the short ones wait behind one
// (slowed 100x and more); under PS with 2 us quanta one waits at most a quantum per request
// ahead of it.
TEST(PsVsFcfs, FewerShortRequestsWaitBehindLongOnesUnderPs) {
  const SimResult ps = run("extreme-bimodal", "ps", 2.0);
  const SimResult fcfs = run("extreme-bimodal", "fcfs", 2.0);
  const uint64_t ps_slowed = ps.run.classes[0].slowdown_milli.count_above(100 * 1000);
  const uint64_t fcfs_slowed = fcfs.run.classes[0].slowdown_milli.count_above(100 * 1000);
  EXPECT_GT(fcfs_slowed, ps.run.classes[0].sojourn_ns.count() / 10) << "fcfs " << fcfs_slowed;
  EXPECT_LT(ps_slowed * 100, fcfs_slowed) << "ps " << ps_slowed << " fcfs " << fcfs_slowed;
  // Every request finished in both, and only PS preempted the long ones.
  EXPECT_EQ(ps.run.completed, ps.run.dispatch.generated);
  EXPECT_EQ(fcfs.run.completed, fcfs.run.dispatch.generated);
  EXPECT_GT(ps.run.classes[1].preemptions, ps.run.classes[1].sojourn_ns.count());
  EXPECT_EQ(fcfs.run.classes[1].preemptions, 0u);
}

TEST(PsVsFcfs, ShortClassTailSlowdownIsLowerUnderPsAndLongOnesPayForIt) {
  const SimResult ps = run("extreme-bimodal", "ps", 2.0);
  const SimResult fcfs = run("extreme-bimodal", "fcfs", 2.0);
  for (const double p : {99.0, 99.9}) {
    EXPECT_LT(ps.run.classes[0].slowdown_milli.value_at_percentile(p),
              fcfs.run.classes[0].slowdown_milli.value_at_percentile(p))
        << "p" << p;
  }
  // The long requests share the worker with the short ones instead of running alone.
  EXPECT_GT(ps.run.classes[1].sojourn_ns.mean(), fcfs.run.classes[1].sojourn_ns.mean());
}

}  // namespace
}  // namespace quanta
