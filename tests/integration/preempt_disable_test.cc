// A request inside a preempt-disabled region is never preempted: under PS with a 2 us
// quantum, no other request on its worker finishes while it spins 200 us in the region,
// and it is preempted exactly once, at the enable (the deferred preemption).
#include <gtest/gtest.h>

#include "experiment/in_process_run.h"
#include "test_apps.h"

namespace quanta {
namespace {

TEST(PreemptDisable, RegionIsNeverPreempted) {
  RunConfig c;
  c.workload = "bimodal:90:1:200";
  c.load = 0.5;
  c.duration_s = 0.2;
  c.warmup_frac = 0;
  const RunResult r = run_in_process(c, Workload::parse(c.workload), testing::region_app());
  ASSERT_EQ(r.completed, r.dispatch.generated);
  const ClassStats& region = r.classes[1];
  ASSERT_GT(region.sojourn_ns.count(), 0u);
  EXPECT_EQ(region.preemptions, region.sojourn_ns.count()) << "one deferred preemption per region";
  EXPECT_EQ(testing::region_violations(), 0u);
  EXPECT_EQ(r.app_errors, 0u);
  EXPECT_EQ(r.unbalanced_disables, 0u);
  // Short requests were preempted at most by explicit probes past their quantum: they ran.
  EXPECT_GT(r.classes[0].sojourn_ns.count(), 0u);
}

}  // namespace
}  // namespace quanta
