// The flag monitor's decisions, on counter lines the test writes itself (no threads).
#include "runtime/quantum_monitor.h"

#include <gtest/gtest.h>

namespace quanta {
namespace {

struct FakeWorker {
  SpscRing<Request*> ring{2};
  WorkerCounters counters;
  PreemptFlagLine flag;
  WorkerPort port() { return {&ring, &counters, &flag.word}; }
  void open(uint64_t seq, uint64_t start) {
    counters.quantum_seq.store(seq);
    counters.quantum_start_tsc.store(start);
  }
};

TEST(QuantumMonitor, FlagsAQuantumOnceItHasRunItsLength) {
  FakeWorker w;
  const WorkerPort ports[] = {w.port()};
  QuantumMonitor monitor(ports, 1000, QuantumMonitor::Action::kWriteFlag);
  monitor.poll(5000);  // idle worker: start 0
  EXPECT_EQ(w.flag.word, 0u);
  w.open(7, 10'000);
  monitor.poll(10'500);  // half a quantum in
  EXPECT_EQ(w.flag.word, 0u);
  monitor.poll(11'000);
  EXPECT_EQ(w.flag.word, 7u);  // names the quantum it ends
  w.flag.word = 0;             // the worker's probe consumed it
  w.open(8, 11'200);           // ... and the worker went on to its next quantum
  monitor.poll(11'900);
  EXPECT_EQ(w.flag.word, 0u) << "each quantum is flagged once it has run its length, not before";
  EXPECT_EQ(monitor.actions(), 1u);
  monitor.poll(12'200);
  EXPECT_EQ(w.flag.word, 8u);
  EXPECT_EQ(monitor.retries(), 0u);
}

// The first action for a quantum can be lost (a signal that finds the worker not yet in
// the task, a flag written before the worker armed its sequence number): a quantum that
// is still open is acted on again, at doubling intervals.
TEST(QuantumMonitor, ActsAgainOnAQuantumStillOpenAtDoublingIntervals) {
  FakeWorker w;
  const WorkerPort ports[] = {w.port()};
  QuantumMonitor monitor(ports, 1000, QuantumMonitor::Action::kWriteFlag);
  w.open(7, 10'000);
  monitor.poll(11'000);
  EXPECT_EQ(w.flag.word, 7u);
  w.flag.word = 0;  // cleared as stale: the worker had not armed quantum 7 yet
  monitor.poll(11'999);
  EXPECT_EQ(w.flag.word, 0u) << "no retry before one more quantum has passed";
  monitor.poll(12'000);
  EXPECT_EQ(w.flag.word, 7u);
  EXPECT_EQ(monitor.retries(), 1u);
  w.flag.word = 0;
  monitor.poll(13'999);
  EXPECT_EQ(w.flag.word, 0u) << "the second retry waits twice as long";
  monitor.poll(14'000);
  EXPECT_EQ(w.flag.word, 7u);
  monitor.poll(17'999);
  monitor.poll(18'000);
  EXPECT_EQ(monitor.retries(), 3u);
  EXPECT_EQ(monitor.actions(), 4u);
  // A task that never reaches a probe for a million quanta costs about log2 of that.
  for (uint64_t t = 18'000; t < 1'000'000'000; t += 1000) monitor.poll(t);
  EXPECT_LE(monitor.retries(), 25u);
  // A new quantum starts the count afresh.
  w.open(8, 1'000'000'000);
  monitor.poll(1'000'001'000);
  EXPECT_EQ(w.flag.word, 8u);
  monitor.poll(1'000'002'000);
  EXPECT_EQ(w.flag.word, 8u);
}

TEST(QuantumMonitor, WatchesEveryWorkerSeparately) {
  FakeWorker a, b;
  const WorkerPort ports[] = {a.port(), b.port()};
  QuantumMonitor monitor(ports, 100, QuantumMonitor::Action::kWriteFlag);
  a.open(1, 1000);
  b.open(1, 1050);
  monitor.poll(1120);
  EXPECT_EQ(a.flag.word, 1u);
  EXPECT_EQ(b.flag.word, 0u);
  monitor.poll(1150);
  EXPECT_EQ(b.flag.word, 1u);
}

}  // namespace
}  // namespace quanta
