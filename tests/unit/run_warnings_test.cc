// Which conditions make a run warn, on results built by hand: counts only.
#include "experiment/run_warnings.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace quanta {
namespace {

std::set<std::string> codes(const RunResult& r) {
  std::set<std::string> out;
  for (const auto& w : run_warnings(r)) {
    EXPECT_FALSE(w["message"].get<std::string>().empty());
    out.insert(w["code"].get<std::string>());
  }
  return out;
}

RunResult clean() {
  RunResult r;
  r.config.workers = 1;
  r.cpus = 2;
  r.dispatch.generated = 1000;
  r.classes.resize(2);
  return r;
}

TEST(RunWarnings, ACleanRunHasNone) { EXPECT_TRUE(codes(clean()).empty()); }

TEST(RunWarnings, LateDispatchesAboveTheShare) {
  RunResult r = clean();
  r.dispatch.late_arrivals = 10;  // exactly 1%: not above
  EXPECT_TRUE(codes(r).empty());
  r.dispatch.late_arrivals = 11;
  EXPECT_EQ(codes(r), std::set<std::string>{"late_dispatches"});
}

TEST(RunWarnings, EachConditionHasItsCode) {
  RunResult r = clean();
  r.dispatch.full_ring_waits = 1;
  r.classes[1].sojourn_ns.record(Histogram::kMaxValue + 1);
  r.config.workers = 2;  // three threads on two CPUs
  r.build_failures = 3;
  EXPECT_EQ(codes(r), (std::set<std::string>{"full_ring_waits", "histogram_overflow", "shared_cpus",
                                             "request_build_failures"}));
}

TEST(RunWarnings, AThreadThatLostOverOnePercentToTheHost) {
  RunResult r = clean();
  r.elapsed_s = 1.0;
  r.stalls.push_back({"dispatcher", 0, 3, 10e6, 5e6});  // 1% of the run: not above
  r.stalls.push_back({"worker 0", 1, 0, 0, 0});
  EXPECT_TRUE(codes(r).empty());
  r.stalls[1] = {"worker 0", 1, 4, 10.5e6, 9e6};
  EXPECT_EQ(codes(r), std::set<std::string>{"host_stalls"});
  EXPECT_NE(run_warnings(r)[0]["message"].get<std::string>().find("worker 0's CPU 1"), std::string::npos);
}

TEST(RunWarnings, SimulatedRunsDoNotCountCpus) {
  RunResult r = clean();
  r.cpus = 0;  // the simulator: no real CPUs
  r.config.workers = 64;
  EXPECT_TRUE(codes(r).empty());
}

}  // namespace
}  // namespace quanta
