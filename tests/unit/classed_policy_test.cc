// The class-aware local policy (policy/classed_policy.h): queues per class, the class
// chosen by ClassBandwidth, the schedule's text.
#include "policy/classed_policy.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace quanta {
namespace {

TEST(ClassedPolicy, PicksFromTheLatencyCriticalQueueFirstInItsOwnOrder) {
  ClassedPolicy p("ps", 8, parse_class_schedule("lc,be", 1));
  p.set_class(0, 1);  // BE
  p.admit(0);
  p.set_class(1, 0);  // LC
  p.admit(1);
  p.set_class(2, 0);
  p.admit(2);
  EXPECT_EQ(p.waiting(), 3u);
  EXPECT_EQ(p.pick(), 1u);
  EXPECT_EQ(p.picked_class(), 0u);
  EXPECT_EQ(p.allowance(), ClassBandwidth::kUnlimited);
  EXPECT_EQ(p.pick(), 2u);
  EXPECT_EQ(p.pick(), 0u);
  EXPECT_EQ(p.picked_class(), 1u);
  EXPECT_FALSE(p.pick().has_value());
  EXPECT_EQ(p.waiting(), 0u);
}

TEST(ClassedPolicy, ABudgetedClassRunsOnItsBudgetAndIsToldHowMuchIsLeft) {
  ClassedPolicy p("ps", 8, parse_class_schedule("lc,be:30/100", 1));
  p.set_class(0, 0);
  p.admit(0);
  p.set_class(1, 1);
  p.admit(1);
  p.set_now(10);
  EXPECT_EQ(p.pick(), 1u) << "in budget, BE goes first";
  EXPECT_EQ(p.allowance(), 30u);
  p.charge(1, 30, 40);
  p.requeue(1, 30);
  p.set_now(40);
  EXPECT_EQ(p.pick(), 0u) << "its budget spent, LC";
  EXPECT_EQ(p.pick(), 1u) << "then BE on the idle CPU";
  EXPECT_EQ(p.allowance(), ClassBandwidth::kUnlimited);
}

TEST(ClassedPolicy, ClassesBeyondTheScheduleFollowItsLastEntry) {
  ClassedPolicy p("fcfs", 4, parse_class_schedule("lc,be", 1));
  p.set_class(0, 7);
  p.admit(0);
  p.set_class(1, 0);
  p.admit(1);
  EXPECT_EQ(p.pick(), 1u);
  EXPECT_EQ(p.pick(), 0u);
  EXPECT_FALSE(p.preemptive()) << "fcfs queues";
}

TEST(ClassedPolicy, SchedulesAreParsedInTheCallersUnit) {
  const std::vector<ClassParams> c = parse_class_schedule("lc:p5,be:30/100:cap", 1000);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_TRUE(c[0].latency_critical);
  EXPECT_EQ(c[0].priority, 5);
  EXPECT_FALSE(c[1].latency_critical);
  EXPECT_EQ(c[1].runtime, 30'000u);
  EXPECT_EQ(c[1].period, 100'000u);
  EXPECT_TRUE(c[1].capped);
  for (const char* bad : {"", "xx", "lc,", "be:30", "be:30/", "be:0/100", "be:300/100", "lc:cap", "be:p",
                          "be:30/100:zz", "lc:nan/100"}) {
    EXPECT_THROW(parse_class_schedule(bad, 1), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace quanta
