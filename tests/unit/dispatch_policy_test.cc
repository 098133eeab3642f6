#include "policy/dispatch_policy.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <vector>

namespace quanta {
namespace {

TEST(DispatchPolicy, JsqMsqJoinsShortestThenMostServicedQuanta) {
  auto p = make_dispatch_policy("jsq-msq", 1);
  const std::vector<WorkerLoad> loads{{3, 50}, {1, 2}, {1, 9}, {1, 9}, {2, 100}};
  EXPECT_EQ(p->choose(loads), 2u);  // shortest are 1,2,3; 2 and 3 tie on quanta: lowest index
  const std::vector<WorkerLoad> one{{7, 0}};
  EXPECT_EQ(p->choose(one), 0u);
}

TEST(DispatchPolicy, JsqBreaksTiesAtRandomAmongTheShortestOnly) {
  auto p = make_dispatch_policy("jsq", 3);
  const std::vector<WorkerLoad> loads{{2, 0}, {0, 0}, {5, 0}, {0, 0}, {0, 0}};
  std::set<uint32_t> chosen;
  for (int i = 0; i < 1000; ++i) chosen.insert(p->choose(loads));
  EXPECT_EQ(chosen, (std::set<uint32_t>{1, 3, 4}));
}

TEST(DispatchPolicy, RandomReachesEveryWorker) {
  auto p = make_dispatch_policy("random", 5);
  const std::vector<WorkerLoad> loads(6);
  std::vector<int> hits(6, 0);
  for (int i = 0; i < 6000; ++i) ++hits[p->choose(loads)];
  for (int h : hits) EXPECT_GT(h, 0);
}

TEST(DispatchPolicy, PowerOfTwoNeverPicksTheLongerOfItsSample) {
  auto p = make_dispatch_policy("po2", 9);
  const std::vector<WorkerLoad> two{{4, 0}, {1, 0}};  // both are always sampled
  for (int i = 0; i < 100; ++i) EXPECT_EQ(p->choose(two), 1u);
  // With three workers the longest one can only win a sample against itself, which po2
  // never draws (the two samples are distinct).
  const std::vector<WorkerLoad> three{{1, 0}, {9, 0}, {2, 0}};
  for (int i = 0; i < 1000; ++i) EXPECT_NE(p->choose(three), 1u);
}

TEST(DispatchPolicy, SameSeedSameDecisions) {
  for (const auto& name : dispatch_policy_names()) {
    auto a = make_dispatch_policy(name, 42);
    auto b = make_dispatch_policy(name, 42);
    const std::vector<WorkerLoad> loads{{1, 0}, {1, 0}, {1, 0}, {0, 0}, {0, 0}};
    for (int i = 0; i < 100; ++i) ASSERT_EQ(a->choose(loads), b->choose(loads)) << name;
  }
}

TEST(DispatchPolicy, UnknownNameIsRejectedByName) {
  EXPECT_THROW(make_dispatch_policy("round-robin", 1), std::invalid_argument);
}

}  // namespace
}  // namespace quanta
