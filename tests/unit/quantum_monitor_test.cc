// The flag monitor's decisions, on counter lines the test writes itself (no threads).
#include "runtime/quantum_monitor.h"

#include <gtest/gtest.h>

namespace quanta {
namespace {

struct FakeWorker {
  SpscRing<Request*> ring{2};
  WorkerCounters counters;
  PreemptFlagLine flag;
  WorkerPort port() { return {&ring, &counters, &flag}; }
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
  monitor.poll(15'000);
  EXPECT_EQ(w.flag.word, 0u) << "each quantum is flagged once";
  EXPECT_EQ(monitor.actions(), 1u);
  w.open(8, 15'000);
  monitor.poll(16'000);
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
