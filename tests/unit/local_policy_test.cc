#include "policy/local_policy.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace quanta {
namespace {

std::vector<TaskId> drain(LocalPolicy& p) {
  std::vector<TaskId> order;
  while (auto t = p.pick()) order.push_back(*t);
  return order;
}

TEST(LocalPolicy, ProcessorSharingIsRoundRobin) {
  auto ps = make_local_policy("ps", 8);
  EXPECT_TRUE(ps->preemptive());
  ps->admit(1);
  ps->admit(2);
  ps->admit(3);
  // 1 runs a quantum and goes to the back; 4 arrives meanwhile.
  ASSERT_EQ(ps->pick(), 1u);
  ps->admit(4);
  ps->requeue(1, 100);
  EXPECT_EQ(drain(*ps), (std::vector<TaskId>{2, 3, 4, 1}));
}

TEST(LocalPolicy, FcfsRunsToCompletionAndKeepsArrivalOrder) {
  auto fcfs = make_local_policy("fcfs", 8);
  EXPECT_FALSE(fcfs->preemptive());
  fcfs->admit(1);
  fcfs->admit(2);
  ASSERT_EQ(fcfs->pick(), 1u);
  fcfs->admit(3);
  fcfs->requeue(1, 100);  // an explicit yield: 1 is still first
  EXPECT_EQ(drain(*fcfs), (std::vector<TaskId>{1, 2, 3}));
}

TEST(LocalPolicy, LasPicksLeastAttainedServiceOldestFirstOnTies) {
  auto las = make_local_policy("las", 8);
  EXPECT_TRUE(las->preemptive());
  las->requeue(1, 500);
  las->requeue(2, 100);
  las->admit(3);          // 0 service
  las->requeue(4, 100);   // ties with 2, arrived later
  las->admit(5);          // ties with 3, arrived later
  EXPECT_EQ(las->waiting(), 5u);
  EXPECT_EQ(drain(*las), (std::vector<TaskId>{3, 5, 2, 4, 1}));
}

TEST(LocalPolicy, FillsToCapacityWithoutLosingTasks) {
  for (const auto& name : local_policy_names()) {
    auto p = make_local_policy(name, 64);
    for (TaskId t = 0; t < 64; ++t) p->admit(t);
    EXPECT_EQ(drain(*p).size(), 64u) << name;
  }
}

TEST(LocalPolicy, UnknownNameIsRejectedByName) {
  try {
    make_local_policy("srpt", 4);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("srpt"), std::string::npos);
  }
}

}  // namespace
}  // namespace quanta
