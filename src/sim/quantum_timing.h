// How long one quantum of a simulated task lasts under each preemption mechanism, and
// what it costs the worker: pure arithmetic on simulated ns, no engine state. The engine
// asks `begin_quantum` when a quantum starts; for the mechanisms whose quantum a monitor
// ends (flag, signal, hybrid's backstop) it is told when the monitor must first look, and
// later, once it knows when the monitor's poll actually came (the dispatcher may be busy
// or between polls), asks `after_monitor` for the quantum's end. docs/sim.md, "Preemption
// mechanisms", says where each cost comes from.
#pragma once

#include <limits>

#include "preempt/mechanism.h"

namespace quanta {

struct MechanismCosts {
  double preempt_overhead_ns = 0;   // worker time per preemption (switch out, pick, switch in)
  double flag_notification_ns = 0;  // flag: the monitor's write -> the task has stopped at a probe
  double signal_latency_ns = 0;     // signal: tgkill -> the task switched out in the handler
  double signal_cpu_ns = 0;         // worker CPU per signal (kernel entry and exit, handler, sigreturn)
};

struct QuantumSpec {
  PreemptMechanism mechanism = PreemptMechanism::kClock;
  double start_ns = 0;
  double remaining_ns = 0;          // the task's work left
  double quantum_ns = 0;            // +infinity: not preemptive (fcfs, none)
  double probe_jitter_ns = 0;       // probes see the end of a quantum this much late (clock, flag, hybrid)
  double backstop_ns = 0;           // hybrid: the monitor signals this long into the quantum
};

struct QuantumEnd {
  double work_ns = 0;               // work the task did
  bool finished = false;            // that work completed the request
  double stop_ns = 0;               // when its work stopped (the finish time of a finished request)
  double free_ns = 0;               // when the worker can start its next quantum
  bool monitor_acted = false;       // the monitor wrote the flag or sent a signal for this quantum
  bool signal_received = false;     // a signal reached the worker (stale or not)
  bool signal_switched = false;     // ... and ended the quantum
};

struct QuantumStart {
  static constexpr double kNever = std::numeric_limits<double>::infinity();
  double monitor_due_ns = kNever;   // when the monitor may first act; kNever: `end` is final
  QuantumEnd end;                   // valid when monitor_due_ns is kNever
};

QuantumStart begin_quantum(const QuantumSpec& spec, const MechanismCosts& costs);

// The quantum's end once the monitor's first poll at or after `monitor_due_ns` came at
// `poll_ns`.
QuantumEnd after_monitor(const QuantumSpec& spec, const MechanismCosts& costs, double poll_ns);

}  // namespace quanta
