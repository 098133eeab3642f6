// Injected host stalls in the simulator: a CPU's time under a stall trace, the trace's file
// format, and the engine's bookkeeping with stalls (untouched within all, each wider rule
// marking at least what the lifetime rule marks, no stalls marking nothing).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <unistd.h>
#include <string>

#include "sim/engine.h"
#include "sim/stall_trace.h"

namespace quanta {
namespace {

constexpr double kNoDeadline = 1e300;

TEST(StalledCpu, WorkStopsDuringAStallAndTheTraceRepeats) {
  const std::vector<StallSpan> spans{{100, 50}};
  StalledCpu cpu(spans, 1000, 10);
  StalledCpu::Stint s = cpu.run(0, 80, kNoDeadline);  // done before the stall
  EXPECT_DOUBLE_EQ(s.end_ns, 80);
  EXPECT_TRUE(s.finished);
  s = cpu.run(90, 30, kNoDeadline);  // 10 before, the stall, 20 after
  EXPECT_DOUBLE_EQ(s.end_ns, 170);
  EXPECT_DOUBLE_EQ(s.work_ns, 30);
  EXPECT_TRUE(s.finished);
  s = cpu.run(1090, 30, kNoDeadline);  // the same stall, one period on
  EXPECT_DOUBLE_EQ(s.end_ns, 1170);
}

TEST(StalledCpu, AQuantumEndsAtItsDeadlineOrWhenAStallPastItEnds) {
  const std::vector<StallSpan> spans{{100, 50}};
  StalledCpu cpu(spans, 1000, 10);
  StalledCpu::Stint s = cpu.run(0, 100, 30);
  EXPECT_DOUBLE_EQ(s.end_ns, 30);
  EXPECT_DOUBLE_EQ(s.work_ns, 30);
  EXPECT_FALSE(s.finished);
  s = cpu.run(90, 100, 20);  // 10 of work, then the stall runs past the deadline
  EXPECT_DOUBLE_EQ(s.end_ns, 150);
  EXPECT_DOUBLE_EQ(s.work_ns, 10);
  EXPECT_FALSE(s.finished);
  EXPECT_DOUBLE_EQ(cpu.available_at(1120), 1150);  // inside the repeated stall
  EXPECT_DOUBLE_EQ(cpu.available_at(1160), 1160);
}

TEST(StalledCpu, LogsOnlyStallsAboveTheThresholdOnceTheyEnded) {
  const std::vector<StallSpan> spans{{100, 50}, {300, 5}};
  StalledCpu cpu(spans, 1000, 10);
  cpu.log_until(120);
  EXPECT_EQ(cpu.log().count(), 0u);  // still going on
  cpu.log_until(999);
  EXPECT_EQ(cpu.log().count(), 1u);  // the 5 ns one is under the threshold
  cpu.log_until(1150);
  EXPECT_EQ(cpu.log().count(), 2u);
}

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/quanta_stalls_XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << text;
  return path;
}

TEST(StallTrace, ReadsTheBenchmarksTraceAndNamesWhatIsWrong) {
  const std::string good = write_temp(R"({"seconds": 0.001, "cpus": [{"cpu": 0, "trace_us": [[10, 2], [20, 30.5]]}]})");
  const StallTrace t = load_stall_trace(good);
  EXPECT_DOUBLE_EQ(t.period_ns, 1e6);
  ASSERT_EQ(t.cpus.size(), 1u);
  ASSERT_EQ(t.cpus[0].size(), 2u);
  EXPECT_DOUBLE_EQ(t.cpus[0][1].start_ns, 20e3);
  EXPECT_DOUBLE_EQ(t.cpus[0][1].length_ns, 30.5e3);
  std::remove(good.c_str());
  for (const char* text : {"not json", R"({"cpus": []})", R"({"seconds": 1, "cpus": [{"cpu": 0}]})",
                           R"({"seconds": 1, "cpus": [{"trace_us": [[10, 20], [15, 1]]}]})",
                           R"({"seconds": 1, "cpus": [{"trace_us": [[10, -1]]}]})"}) {
    const std::string bad = write_temp(text);
    try {
      load_stall_trace(bad);
      ADD_FAILURE() << "accepted " << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--stalls: ", 0), 0u) << e.what();
    }
    std::remove(bad.c_str());
  }
  EXPECT_THROW(load_stall_trace("/nonexistent/stalls.json"), std::invalid_argument);
}

// A trace with a few long stalls per CPU, as this VM makes them, shortened.
std::shared_ptr<const StallTrace> synthetic_trace() {
  auto t = std::make_shared<StallTrace>();
  t->period_ns = 20e6;
  t->cpus.push_back({{1e6, 2e6}, {9e6, 300e3}, {15e6, 5e3}});
  t->cpus.push_back({{4e6, 1e6}, {12e6, 50e3}});
  return t;
}

uint64_t count_of(const ClassStatsSet& set) {
  uint64_t n = 0;
  for (const ClassStats& c : set) n += c.sojourn_ns.count();
  return n;
}

SimResult run(const char* dispatch, std::shared_ptr<const StallTrace> stalls, StallWindow window) {
  SimConfig c;
  c.run.workload = "extreme-bimodal";
  c.run.workers = 2;
  c.run.load = 0.6;
  c.run.dispatch_policy = dispatch;
  c.jobs = 100000;
  c.stalls = std::move(stalls);
  c.stall_window = window;
  return simulate(c, Workload::parse(c.run.workload));
}

TEST(SimStalls, UntouchedIsASubsetAndWiderRulesMarkMore) {
  for (const char* dispatch : {"jsq-msq", "central", "jbsq:2", "steal"}) {
    const SimResult none = run(dispatch, nullptr, StallWindow::kDrain);
    EXPECT_EQ(count_of(none.run.untouched), count_of(none.run.classes)) << dispatch;
    EXPECT_TRUE(none.run.stalls.empty());

    const SimResult drain = run(dispatch, synthetic_trace(), StallWindow::kDrain);
    const SimResult life = run(dispatch, synthetic_trace(), StallWindow::kLifetime);
    const SimResult busy = run(dispatch, synthetic_trace(), StallWindow::kBusyPeriod);
    ASSERT_EQ(drain.run.classes.size(), drain.run.untouched.size());
    for (std::size_t i = 0; i < drain.run.classes.size(); ++i) {
      EXPECT_LE(drain.run.untouched[i].sojourn_ns.count(), drain.run.classes[i].sojourn_ns.count()) << dispatch;
    }
    // The same run whatever the rule; the drain and busy-period windows contain the
    // lifetime ones.
    EXPECT_EQ(count_of(drain.run.classes), count_of(life.run.classes)) << dispatch;
    EXPECT_LT(count_of(drain.run.untouched), count_of(drain.run.classes)) << dispatch;
    EXPECT_LE(count_of(drain.run.untouched), count_of(life.run.untouched)) << dispatch;
    EXPECT_LE(count_of(busy.run.untouched), count_of(life.run.untouched)) << dispatch;
    // The dispatcher and both workers logged the stalls above the 20 us threshold.
    ASSERT_EQ(drain.run.stalls.size(), 3u) << dispatch;
    EXPECT_GE(drain.run.stalls[0].count, 2u) << dispatch;
    EXPECT_GE(drain.run.stalls[1].count, 2u) << dispatch;
  }
}

}  // namespace
}  // namespace quanta
