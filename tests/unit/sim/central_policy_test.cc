#include "policy/central_policy.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <vector>

namespace quanta {
namespace {

TEST(DispatchSpec, ParsesEverySimulatorPolicy) {
  EXPECT_EQ(parse_dispatch_spec("jsq-msq").kind, DispatchSpec::Kind::kPerRequest);
  EXPECT_EQ(parse_dispatch_spec("po2").kind, DispatchSpec::Kind::kPerRequest);
  EXPECT_EQ(parse_dispatch_spec("central").kind, DispatchSpec::Kind::kCentral);
  EXPECT_EQ(parse_dispatch_spec("steal").kind, DispatchSpec::Kind::kSteal);
  const DispatchSpec jbsq = parse_dispatch_spec("jbsq:3");
  EXPECT_EQ(jbsq.kind, DispatchSpec::Kind::kJbsq);
  EXPECT_EQ(jbsq.depth, 3u);
  EXPECT_EQ(jbsq.name, "jbsq:3");
}

TEST(DispatchSpec, RejectsBadNamesNamingThem) {
  for (const char* bad : {"jbsq", "jbsq:", "jbsq:0", "jbsq:x", "jbsq:2x", "jbsq:5000", "round-robin", ""}) {
    try {
      parse_dispatch_spec(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(DispatchSpec, RuntimeListIsUnchangedAndSimListExtendsIt) {
  EXPECT_EQ(dispatch_policy_names(), (std::vector<std::string>{"jsq-msq", "jsq", "random", "po2"}));
  const auto& sim = sim_dispatch_policy_names();
  ASSERT_EQ(sim.size(), 7u);
  EXPECT_EQ(sim[4], "central");
  EXPECT_EQ(sim[5], "jbsq:K");
}

TEST(JbsqPolicy, JoinsShortestBelowDepthElseCentralQueue) {
  const JbsqPolicy p(2);
  EXPECT_EQ(p.choose(std::vector<WorkerLoad>{{2, 0}, {1, 0}, {0, 0}, {0, 0}}), std::optional<uint32_t>(2));
  EXPECT_EQ(p.choose(std::vector<WorkerLoad>{{2, 0}, {1, 0}, {2, 0}}), std::optional<uint32_t>(1));
  EXPECT_EQ(p.choose(std::vector<WorkerLoad>{{2, 0}, {2, 0}, {3, 0}}), std::nullopt);
}

TEST(StealPolicy, LongestVictimNeverSelfNeverEmpty) {
  StealPolicy p(1);
  EXPECT_EQ(p.victim(std::vector<uint32_t>{0, 3, 5, 5}, 0), std::optional<uint32_t>(2));
  EXPECT_EQ(p.victim(std::vector<uint32_t>{9, 0, 1}, 0), std::optional<uint32_t>(2));
  EXPECT_EQ(p.victim(std::vector<uint32_t>{4, 0, 0}, 0), std::nullopt);
}

TEST(StealPolicy, RandomVictimReachesEveryNonEmptyOther) {
  StealPolicy p(7, /*random_victim=*/true);
  std::set<uint32_t> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(*p.victim(std::vector<uint32_t>{1, 0, 2, 1, 5}, 4));
  EXPECT_EQ(seen, (std::set<uint32_t>{0, 2, 3}));
}

}  // namespace
}  // namespace quanta
