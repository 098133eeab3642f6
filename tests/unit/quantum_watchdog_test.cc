// The watchdog's decisions, on counter lines the test writes itself (no threads, no
// signals: sample_pc off, so reports carry no address).
#include "runtime/quantum_watchdog.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace quanta {
namespace {

struct FakeWorker {
  SpscRing<Request*> ring{2};
  WorkerCounters counters;
  WorkerPort port() { return {&ring, &counters}; }
  void open(uint64_t seq, uint64_t start, uint64_t request) {
    counters.quantum_seq.store(seq);
    counters.running_request_id.store(request);
    counters.quantum_start_tsc.store(start);
  }
  void close() { counters.quantum_start_tsc.store(0); }
};

constexpr uint64_t kReportAfter = 4'000'000'000;  // cycles: far above the 10 us minimum look gap
constexpr uint64_t kStopAfter = 40'000'000'000;

TEST(QuantumWatchdog, ReportsEachLongQuantumOnceWithItsWorkerAndRequest) {
  FakeWorker a, b;
  const WorkerPort ports[] = {a.port(), b.port()};
  std::vector<OverrunReport> seen;
  WatchdogConfig config;
  config.report_after_cycles = kReportAfter;
  config.on_overrun = [&](const OverrunReport& r) { seen.push_back(r); };
  QuantumWatchdog watchdog(ports, config);
  a.open(1, 1'000, 17);
  b.open(5, 1'000, 30);
  watchdog.poll(kReportAfter);  // a hair short of the length for both
  EXPECT_TRUE(seen.empty());
  b.close();                    // b's quantum ended in time
  watchdog.poll(2 * kReportAfter);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].worker, 0);
  EXPECT_EQ(seen[0].request_id, 17u);
  EXPECT_EQ(seen[0].pc, 0u);
  watchdog.poll(3 * kReportAfter);
  EXPECT_EQ(watchdog.overruns(), 1u) << "a quantum is reported once, however long it goes on";
  a.open(2, 3 * kReportAfter, 18);
  watchdog.poll(5 * kReportAfter);
  ASSERT_EQ(watchdog.overruns(), 2u);
  EXPECT_EQ(watchdog.reports().back().request_id, 18u);
  EXPECT_EQ(describe_overrun(watchdog.reports().back()).rfind("request 18 on worker 0 ran ", 0), 0u);
}

TEST(QuantumWatchdog, KeepsTheFirstReportsAndCountsThemAll) {
  FakeWorker a;
  const WorkerPort ports[] = {a.port()};
  WatchdogConfig config;
  config.report_after_cycles = kReportAfter;
  QuantumWatchdog watchdog(ports, config);
  uint64_t now = 1'000;
  for (uint64_t seq = 1; seq <= QuantumWatchdog::kReportsKept + 5; ++seq) {
    a.open(seq, now, seq);
    now += 2 * kReportAfter;
    watchdog.poll(now);
  }
  EXPECT_EQ(watchdog.overruns(), QuantumWatchdog::kReportsKept + 5);
  ASSERT_EQ(watchdog.reports().size(), QuantumWatchdog::kReportsKept);
  EXPECT_EQ(watchdog.reports().front().request_id, 1u);
}

TEST(QuantumWatchdog, DeclaresAQuantumStuckOnceWithTheCountsSoFar) {
  FakeWorker a, b;
  const WorkerPort ports[] = {a.port(), b.port()};
  std::vector<std::string> messages;
  WatchdogConfig config;
  config.stop_after_cycles = kStopAfter;
  config.on_stuck = [&](const std::string& m) { messages.push_back(m); };
  QuantumWatchdog watchdog(ports, config);
  a.counters.finished.store(7);
  b.counters.finished.store(5);
  b.open(9, 1'000, 42);
  watchdog.poll(kStopAfter / 2);
  EXPECT_TRUE(messages.empty());
  EXPECT_EQ(watchdog.overruns(), 0u) << "no overrun reports unless asked for";
  watchdog.poll(kStopAfter + 1'000);
  ASSERT_EQ(messages.size(), 1u);
  const std::string& m = messages[0];
  EXPECT_NE(m.find("worker 1 has run request 42 for "), std::string::npos) << m;
  EXPECT_NE(m.find("ending the run"), std::string::npos) << m;
  EXPECT_NE(m.find("12 requests finished (worker 0: 7, worker 1: 5)"), std::string::npos) << m;
  watchdog.poll(2 * kStopAfter);
  EXPECT_EQ(messages.size(), 1u) << "a caller that lets the run go on is not told again about the same quantum";
}

TEST(QuantumWatchdog, OffMeansNeverLooking) {
  FakeWorker a;
  const WorkerPort ports[] = {a.port()};
  bool called = false;
  WatchdogConfig config;
  config.on_overrun = [&](const OverrunReport&) { called = true; };
  config.on_stuck = [&](const std::string&) { called = true; };
  QuantumWatchdog watchdog(ports, config);
  a.open(1, 1, 1);
  watchdog.poll(UINT64_MAX - 1);
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace quanta
