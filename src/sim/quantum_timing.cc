#include "sim/quantum_timing.h"

#include <algorithm>

namespace quanta {
namespace {

// The task runs until it finishes or, after `budget_ns` of work, a probe stops it. (A
// budget rather than a stop time keeps a clock quantum's work exactly quantum + jitter.)
QuantumEnd run_for(const QuantumSpec& s, const MechanismCosts& c, double budget_ns) {
  QuantumEnd e;
  if (s.remaining_ns <= budget_ns) {
    e.work_ns = s.remaining_ns;
    e.finished = true;
    e.stop_ns = s.start_ns + s.remaining_ns;
    e.free_ns = e.stop_ns;
  } else {
    e.work_ns = budget_ns;
    e.stop_ns = s.start_ns + budget_ns;
    e.free_ns = e.stop_ns + c.preempt_overhead_ns;
  }
  return e;
}

double clock_budget_ns(const QuantumSpec& s) { return s.quantum_ns + s.probe_jitter_ns; }

// The worker enters the kernel for a signal this long after it was sent, and spends the
// signal's CPU from there: the task is switched out `signal_latency_ns` after the send (or
// after the CPU cost, if a calibration gives a latency below it).
double signal_lands_after_ns(const MechanismCosts& c) { return std::max(0.0, c.signal_latency_ns - c.signal_cpu_ns); }

}  // namespace

QuantumStart begin_quantum(const QuantumSpec& s, const MechanismCosts& c) {
  QuantumStart out;
  switch (s.mechanism) {
    case PreemptMechanism::kNone:
    case PreemptMechanism::kClock:
      out.end = run_for(s, c, clock_budget_ns(s));
      return out;
    case PreemptMechanism::kFlag:
    case PreemptMechanism::kSignal:
      // The monitor looks once the quantum has run its length; a task done by then is
      // never flagged or signalled.
      if (s.remaining_ns <= s.quantum_ns) {
        out.end = run_for(s, c, s.quantum_ns);
      } else {
        out.monitor_due_ns = s.start_ns + s.quantum_ns;
      }
      return out;
    case PreemptMechanism::kHybrid:
      // Clock probes end the quantum; the monitor signals a quantum still running at the
      // backstop (code without probes, or a gap between probes longer than the backstop).
      if (std::min(s.remaining_ns, clock_budget_ns(s)) <= s.backstop_ns) {
        out.end = run_for(s, c, clock_budget_ns(s));
      } else {
        out.monitor_due_ns = s.start_ns + s.backstop_ns;
      }
      return out;
  }
  return out;
}

QuantumEnd after_monitor(const QuantumSpec& s, const MechanismCosts& c, double poll_ns) {
  const bool hybrid = s.mechanism == PreemptMechanism::kHybrid;
  // Work the task does before it stops on its own: all of it, or under hybrid up to the
  // clock probe that ends the quantum.
  const double own_budget_ns = hybrid ? clock_budget_ns(s) : s.remaining_ns;
  const double poll_after_ns = poll_ns - s.start_ns;
  // Ended before the poll: the monitor sees a new quantum and does nothing.
  if (std::min(s.remaining_ns, own_budget_ns) <= poll_after_ns) return run_for(s, c, own_budget_ns);

  if (s.mechanism == PreemptMechanism::kFlag) {
    // The task sees the flag at its next probe once the write has reached its core.
    QuantumEnd e = run_for(s, c, poll_after_ns + c.flag_notification_ns + s.probe_jitter_ns);
    e.monitor_acted = true;
    return e;
  }
  // signal, or hybrid's backstop: sent at the poll, it lands on the worker later.
  const double lands_after_ns = poll_after_ns + signal_lands_after_ns(c);
  QuantumEnd e;
  if (std::min(s.remaining_ns, own_budget_ns) <= lands_after_ns) {
    // The quantum ended on its own while the signal travelled: a stale signal, whose CPU
    // the worker still pays before its next quantum.
    e = run_for(s, c, own_budget_ns);
    e.free_ns += c.signal_cpu_ns;
  } else {
    e.work_ns = lands_after_ns;
    e.stop_ns = s.start_ns + lands_after_ns;
    e.free_ns = e.stop_ns + c.signal_cpu_ns + c.preempt_overhead_ns;
    e.signal_switched = true;
  }
  e.monitor_acted = true;
  e.signal_received = true;
  return e;
}

}  // namespace quanta
