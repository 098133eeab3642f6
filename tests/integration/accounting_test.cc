// Every generated request is either completed or dropped, and a drop is counted, never
// silent: overload a worker whose ring holds two requests.
#include <gtest/gtest.h>

#include "experiment/in_process_run.h"
#include "spin_app.h"

namespace quanta {
namespace {

RunConfig overload(const std::string& on_full) {
  RunConfig c;
  c.workload = "fixed:20";
  c.load = 3.0;
  c.duration_s = 0.05;
  c.ring_capacity = 2;
  c.task_slots = 2;
  c.on_full = on_full;
  c.warmup_frac = 0;
  return c;
}

TEST(Accounting, DroppedRequestsAreCountedAndNothingIsLost) {
  const RunConfig c = overload("drop");
  const RunResult r = run_in_process(c, Workload::parse(c.workload), *quanta_spin_app_for(c.preempt.c_str()));
  EXPECT_GT(r.dispatch.dropped, 0u);
  EXPECT_EQ(r.dispatch.generated, r.completed + r.dispatch.dropped);
  EXPECT_EQ(r.dispatch.full_ring_waits, 0u);
}

TEST(Accounting, WaitingOnAFullRingDropsNothingAndCountsTheStalls) {
  const RunConfig c = overload("wait");
  const RunResult r = run_in_process(c, Workload::parse(c.workload), *quanta_spin_app_for(c.preempt.c_str()));
  EXPECT_EQ(r.dispatch.dropped, 0u);
  EXPECT_EQ(r.dispatch.generated, r.completed);
  EXPECT_GT(r.dispatch.full_ring_waits, 0u);
}

}  // namespace
}  // namespace quanta
