// The arithmetic of one quantum under each mechanism (src/sim/quantum_timing.h): exact,
// since it is plain sums of simulated ns.
#include "sim/quantum_timing.h"

#include <gtest/gtest.h>

namespace quanta {
namespace {

QuantumSpec spec(PreemptMechanism m, double remaining_ns) {
  QuantumSpec s;
  s.mechanism = m;
  s.start_ns = 1000;
  s.remaining_ns = remaining_ns;
  s.quantum_ns = 2000;
  s.backstop_ns = 100000;
  return s;
}

TEST(QuantumTiming, ClockStopsAtTheQuantumPlusProbeJitter) {
  MechanismCosts c;
  c.preempt_overhead_ns = 50;
  QuantumSpec s = spec(PreemptMechanism::kClock, 1e6);
  s.probe_jitter_ns = 30;
  const QuantumStart q = begin_quantum(s, c);
  EXPECT_EQ(q.monitor_due_ns, QuantumStart::kNever);
  EXPECT_EQ(q.end.work_ns, 2030);
  EXPECT_EQ(q.end.stop_ns, 3030);
  EXPECT_EQ(q.end.free_ns, 3080);
  EXPECT_FALSE(q.end.finished);
  EXPECT_FALSE(q.end.monitor_acted);
}

TEST(QuantumTiming, ShortWorkFinishesBeforeAnyMonitorLooks) {
  for (PreemptMechanism m : {PreemptMechanism::kFlag, PreemptMechanism::kSignal, PreemptMechanism::kHybrid}) {
    const QuantumStart q = begin_quantum(spec(m, 1500), MechanismCosts{});
    EXPECT_EQ(q.monitor_due_ns, QuantumStart::kNever);
    EXPECT_TRUE(q.end.finished);
    EXPECT_EQ(q.end.stop_ns, 2500);
    EXPECT_EQ(q.end.free_ns, 2500);
  }
}

TEST(QuantumTiming, FlagQuantumIsLongerByThePollWaitAndTheNotification) {
  MechanismCosts c;
  c.flag_notification_ns = 300;
  c.preempt_overhead_ns = 50;
  const QuantumSpec s = spec(PreemptMechanism::kFlag, 1e6);
  const QuantumStart q = begin_quantum(s, c);
  EXPECT_EQ(q.monitor_due_ns, 3000);
  const QuantumEnd at_once = after_monitor(s, c, 3000);
  EXPECT_EQ(at_once.work_ns, 2300);  // the quantum + L
  EXPECT_EQ(at_once.free_ns, 3000 + 300 + 50);
  EXPECT_TRUE(at_once.monitor_acted);
  EXPECT_FALSE(at_once.signal_received);
  const QuantumEnd late_poll = after_monitor(s, c, 3400);
  EXPECT_EQ(late_poll.work_ns, 2700);  // + the 400 ns the poll came late
  // A request that finishes while the flag is on its way is not preempted.
  const QuantumEnd finishes = after_monitor(spec(PreemptMechanism::kFlag, 2200), c, 3000);
  EXPECT_TRUE(finishes.finished);
  EXPECT_EQ(finishes.stop_ns, 3200);
}

TEST(QuantumTiming, SignalLandsAfterItsLatencyAndCostsTheWorkerItsCpu) {
  MechanismCosts c;
  c.signal_latency_ns = 1000;
  c.signal_cpu_ns = 400;
  const QuantumSpec s = spec(PreemptMechanism::kSignal, 1e6);
  EXPECT_EQ(begin_quantum(s, c).monitor_due_ns, 3000);
  const QuantumEnd e = after_monitor(s, c, 3000);
  EXPECT_EQ(e.work_ns, 2600);        // until the kernel takes the CPU: latency - CPU after the send
  EXPECT_EQ(e.free_ns, 3000 + 1000);  // the signal's CPU, then the switch
  EXPECT_TRUE(e.signal_switched);
  // Finished while the signal travelled: a stale signal still costs its CPU.
  const QuantumEnd stale = after_monitor(spec(PreemptMechanism::kSignal, 2300), c, 3000);
  EXPECT_TRUE(stale.finished);
  EXPECT_EQ(stale.stop_ns, 3300);
  EXPECT_EQ(stale.free_ns, 3700);
  EXPECT_TRUE(stale.signal_received);
  EXPECT_FALSE(stale.signal_switched);
  // Finished before the poll: no signal at all.
  const QuantumEnd none = after_monitor(spec(PreemptMechanism::kSignal, 2100), c, 3200);
  EXPECT_FALSE(none.signal_received);
  EXPECT_EQ(none.free_ns, 3100);
}

TEST(QuantumTiming, HybridIsClockUnlessAQuantumOutlastsTheBackstop) {
  MechanismCosts c;
  c.signal_latency_ns = 300;
  c.signal_cpu_ns = 100;
  QuantumSpec s = spec(PreemptMechanism::kHybrid, 1e6);
  const QuantumStart clock_like = begin_quantum(s, c);
  EXPECT_EQ(clock_like.monitor_due_ns, QuantumStart::kNever);
  EXPECT_EQ(clock_like.end.work_ns, 2000);
  // A probe gap of 50 us against a 10 us backstop: the signal ends the quantum.
  s.probe_jitter_ns = 50000;
  s.backstop_ns = 10000;
  const QuantumStart gap = begin_quantum(s, c);
  EXPECT_EQ(gap.monitor_due_ns, 11000);
  const QuantumEnd e = after_monitor(s, c, 11000);
  EXPECT_TRUE(e.signal_switched);
  EXPECT_EQ(e.work_ns, 10000 + 200);
  EXPECT_EQ(e.free_ns, 11000 + 300);
  // The clock probe fires while the signal travels: a stale signal.
  s.probe_jitter_ns = 8100;  // clock stop at 1000 + 10100 = 11100, the signal lands at 11200
  const QuantumEnd raced = after_monitor(s, c, 11000);
  EXPECT_FALSE(raced.signal_switched);
  EXPECT_TRUE(raced.signal_received);
  EXPECT_EQ(raced.work_ns, 10100);
  EXPECT_EQ(raced.free_ns, 11100 + 100);
}

}  // namespace
}  // namespace quanta
