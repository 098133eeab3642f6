// A worker's budget accounting under --class-schedule (runtime/class_scheduler.h): the
// quantum a picked task gets, what each quantum is charged, the counts the run reports.
// Times are plain numbers here, as the worker's cycle-counter reads are.
#include "runtime/class_scheduler.h"

#include <gtest/gtest.h>

namespace quanta {
namespace {

TEST(ClassScheduler, ABudgetedQuantumEndsWhereTheBudgetDoesAndIsCountedAsCut) {
  const std::vector<ClassParams> policy_classes = parse_class_schedule("lc,be:30/100", 1);
  ClassedPolicy policy("ps", 4, policy_classes);
  ClassScheduler s(policy, policy_classes, 4, 4);
  s.admitting(0, 1);
  policy.admit(0);
  s.admitting(1, 0);
  policy.admit(1);
  s.before_pick(200);
  ASSERT_EQ(policy.pick(), 0u) << "BE has its budget: it runs even while LC waits";
  EXPECT_EQ(s.picked(50), 30u) << "a 50-unit quantum, cut to the 30 left";
  s.quantum_ended(200, 230, /*done=*/false);
  policy.requeue(0, 30);
  s.before_pick(230);
  ASSERT_EQ(policy.pick(), 1u) << "budget spent: LC";
  EXPECT_EQ(s.picked(50), 50u) << "LC has no budget to end its quantum";
  s.quantum_ended(230, 280, /*done=*/true);
  s.before_pick(280);
  ASSERT_EQ(policy.pick(), 0u) << "no LC left: BE on the idle CPU (work-conserving)";
  EXPECT_EQ(s.picked(50), 50u);
  s.quantum_ended(280, 295, /*done=*/false);  // yielded early, in period 2
  policy.requeue(0, 45);
  s.before_pick(310);
  ASSERT_EQ(policy.pick(), 0u) << "a new period, a new budget";
  EXPECT_EQ(s.picked(50), 30u);
  s.quantum_ended(310, 325, /*done=*/true);  // finished inside its budget: not cut

  const ClassUsageSet u = s.usage(2.0);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].quanta, 1u);
  EXPECT_EQ(u[0].cpu_ns, 100.0);
  EXPECT_EQ(u[0].budget_ended_quanta, 0u);
  EXPECT_EQ(u[1].quanta, 3u);
  EXPECT_EQ(u[1].cpu_ns, 2.0 * (30 + 15 + 15));
  EXPECT_EQ(u[1].budget_ended_quanta, 1u);
  EXPECT_EQ(u[1].throttled_spells, 0u);
}

TEST(ClassScheduler, ACappedClassOutOfBudgetHoldsTheWorkerOncePerIdleSpell) {
  const std::vector<ClassParams> policy_classes = parse_class_schedule("lc,be:30/100:cap", 1);
  ClassedPolicy policy("ps", 4, policy_classes);
  ClassScheduler s(policy, policy_classes, 4, 4);
  s.admitting(0, 1);
  policy.admit(0);
  s.before_pick(0);
  ASSERT_EQ(policy.pick(), 0u);
  EXPECT_EQ(s.picked(100), 30u);
  s.quantum_ended(0, 30, false);
  policy.requeue(0, 30);
  for (uint64_t now : {30, 50, 99}) {
    s.before_pick(now);
    EXPECT_FALSE(policy.pick().has_value()) << "capped, out of budget at " << now;
    EXPECT_TRUE(s.nothing_picked()) << "a task still waits: the worker must not sleep";
  }
  s.before_pick(100);
  ASSERT_EQ(policy.pick(), 0u) << "its next period";
  EXPECT_EQ(s.picked(100), 30u);
  s.quantum_ended(100, 120, true);
  s.before_pick(120);
  EXPECT_FALSE(policy.pick().has_value());
  EXPECT_FALSE(s.nothing_picked()) << "nothing waits: an ordinary idle worker";
  const ClassUsageSet u = s.usage(1.0);
  EXPECT_EQ(u[1].throttled_spells, 1u) << "three idle iterations, one spell";
  EXPECT_EQ(u[1].budget_ended_quanta, 1u);
  EXPECT_EQ(u[1].quanta, 2u);
  EXPECT_EQ(u[0].throttled_spells, 0u);
}

TEST(ClassScheduler, ABudgetedQuantumAlsoEndsAtItsPeriodsEnd) {
  // The budget is the period's: one unit before the period ends, the quantum is one unit
  // long, and the next period's budget is granted afresh by the next pick.
  const std::vector<ClassParams> policy_classes = parse_class_schedule("be:1/100", 1);
  ClassedPolicy policy("ps", 2, policy_classes);
  ClassScheduler s(policy, policy_classes, 4, 4);
  s.admitting(0, 0);
  policy.admit(0);
  s.before_pick(99);
  ASSERT_EQ(policy.pick(), 0u);
  EXPECT_EQ(s.picked(10), 1u) << "one unit to the period's end";
}

}  // namespace
}  // namespace quanta

namespace quanta {
namespace {

TEST(ClassScheduler, BestEffortWaitsAsideForItsSlotsAndKeepsItsOrder) {
  ClassedPolicy policy("ps", 4, parse_class_schedule("lc,be", 1));
  ClassScheduler s(policy, parse_class_schedule("lc,be", 1), 4, 8);
  EXPECT_EQ(ClassScheduler::lc_reserve(4), 1u);
  EXPECT_EQ(ClassScheduler::lc_reserve(1), 0u) << "one slot: BE may have it";
  EXPECT_EQ(ClassScheduler::lc_reserve(64), 16u);
  Request be[5], lc;
  for (Request& r : be) r.class_index = 1;
  lc.class_index = 0;
  for (TaskId slot = 0; slot < 3; ++slot) {
    ASSERT_FALSE(s.must_wait(be[slot]));
    s.admitting(slot, 1);
  }
  EXPECT_TRUE(s.must_wait(be[3])) << "three BE slots of four taken: the last is LC's";
  EXPECT_FALSE(s.must_wait(lc));
  s.defer(&be[3]);
  s.defer(&be[4]);
  EXPECT_EQ(s.next_deferred(), nullptr) << "no BE slot free yet";
  s.leaving(1);
  EXPECT_EQ(s.next_deferred(), &be[3]) << "first come";
  s.admitting(1, 1);
  EXPECT_EQ(s.next_deferred(), nullptr);
  s.leaving(0);
  EXPECT_EQ(s.next_deferred(), &be[4]);
  EXPECT_EQ(s.backlog_count(), 0u);
  EXPECT_EQ(s.usage(1.0)[1].admissions_deferred, 2u);
}

TEST(ClassScheduler, ABestEffortRequestQueuesBehindThoseAlreadyWaiting) {
  ClassedPolicy policy("ps", 4, parse_class_schedule("lc,be", 1));
  ClassScheduler s(policy, parse_class_schedule("lc,be", 1), 4, 2);
  Request be[3];
  for (Request& r : be) r.class_index = 5;  // past the schedule: its last entry, BE
  for (TaskId slot = 0; slot < 3; ++slot) s.admitting(slot, 1);
  s.defer(&be[0]);
  s.leaving(2);
  EXPECT_TRUE(s.must_wait(be[1])) << "a BE slot is free, but one waits already";
  s.defer(&be[1]);
  EXPECT_TRUE(s.backlog_full());
}

}  // namespace
}  // namespace quanta
