// Processor sharing protects short requests from long ones; FCFS does not.
//
// This VM loses its vCPUs to the host for 1-12 ms several times a second (measured with
// bench/vcpu_stall_probe), and every request in the system during such a stall is late
// whatever the policy. That noise sets the p99.9 of short requests on extreme-bimodal
// (0.5 us / 500 us) under both policies, so a p99.9 comparison there is a coin toss on
// this machine. Two checks stay clear of it:
//  - on extreme-bimodal itself, a count: how many short requests waited long enough to
//    be slowed down 100x (50 us): under FCFS every short that arrives while a long one
//    runs (about 40% of the time at load 0.5); under PS only the stalled ones;
//  - the p99.9 comparison on the same workload scaled 10x in time (5 us / 5 ms, 20 us
//    quantum): the policy effect grows 10x while a stall's stays the same.
#include <gtest/gtest.h>

#include "experiment/in_process_run.h"
#include "spin_app.h"

namespace quanta {
namespace {

RunResult run(const std::string& workload, const std::string& local, double quantum_us) {
  RunConfig c;
  c.workload = workload;
  c.local_policy = local;
  c.quantum_us = quantum_us;
  c.load = 0.5;
  c.duration_s = 2.0;
  c.warmup_frac = 0.1;
  c.seed = 5;
  return run_in_process(c, Workload::parse(workload), *quanta_spin_app_for(c.preempt.c_str()));
}

// A run that shared its CPUs with something else for most of its length (another process
// spinning) says nothing about the policy; such a pair is measured again, at most 3 times.
// What each policy keeps low at load 0.5 whatever the runtime's own cost per request (which
// the sanitized build multiplies by ten, ~1 us a request, pushing the real load towards 0.7):
// PS the median short request (slowed 50x only when the CPU is gone), FCFS the median long
// request (it waits behind shorts and at most a few longs: slowed 5x only when the machine's
// capacity is gone). FCFS's median short is no such test: it waits behind a long one about
// as often as the longs keep the CPU busy.
bool undisturbed(const RunResult& ps, const RunResult& fcfs) {
  return ps.classes[0].slowdown_milli.value_at_percentile(50) < 50 * 1000 &&
         fcfs.classes[1].slowdown_milli.value_at_percentile(50) < 5 * 1000;
}

struct Pair {
  RunResult ps, fcfs;
};

Pair run_pair(const std::string& workload, double quantum_us) {
  for (int attempt = 1;; ++attempt) {
    Pair p{run(workload, "ps", quantum_us), run(workload, "fcfs", quantum_us)};
    if (undisturbed(p.ps, p.fcfs) || attempt == 3) {
      EXPECT_TRUE(undisturbed(p.ps, p.fcfs))
          << "every attempt ran on a machine too busy to measure: median slowdown of short "
             "requests under ps "
          << p.ps.classes[0].slowdown_milli.value_at_percentile(50) / 1000.0
          << " (limit 50), of long ones under fcfs "
          << p.fcfs.classes[1].slowdown_milli.value_at_percentile(50) / 1000.0 << " (limit 5)";
      return p;
    }
  }
}

TEST(PsVsFcfs, FewerShortRequestsWaitBehindLongOnesUnderPs) {
  const Pair p = run_pair("extreme-bimodal", 2.0);
  const uint64_t ps_slowed = p.ps.classes[0].slowdown_milli.count_above(100 * 1000);
  const uint64_t fcfs_slowed = p.fcfs.classes[0].slowdown_milli.count_above(100 * 1000);
  RecordProperty("ps_short_slowed_100x", std::to_string(ps_slowed));
  RecordProperty("fcfs_short_slowed_100x", std::to_string(fcfs_slowed));
  EXPECT_LT(ps_slowed * 2, fcfs_slowed) << "ps " << ps_slowed << " fcfs " << fcfs_slowed;
  EXPECT_EQ(p.ps.completed, p.ps.dispatch.generated);
  EXPECT_EQ(p.fcfs.completed, p.fcfs.dispatch.generated);
}

TEST(PsVsFcfs, ShortClassP999SlowdownIsLowerUnderPs) {
  const Pair p = run_pair("bimodal:99.5:5:5000", 20.0);
  const double ps_p999 = p.ps.classes[0].slowdown_milli.value_at_percentile(99.9) / 1000.0;
  const double fcfs_p999 = p.fcfs.classes[0].slowdown_milli.value_at_percentile(99.9) / 1000.0;
  EXPECT_LT(ps_p999, fcfs_p999) << "ps " << ps_p999 << " fcfs " << fcfs_p999;
}

}  // namespace
}  // namespace quanta
