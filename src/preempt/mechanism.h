// How a quantum ends (--preempt). The mechanisms differ in who decides that the quantum
// is over and how the running task learns it; the local policy still decides whether a
// task may be stopped at all (fcfs never is).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace quanta {

enum class PreemptMechanism {
  kClock,  // probes compare the cycle counter with a thread-local deadline (Tiny Quanta)
  kFlag,   // probes read a per-worker cache line that a monitor writes (Concord)
  kSignal, // a monitor signals the worker thread; the handler switches at a safe point
  kHybrid, // clock probes for the quantum, a signal as backstop for code without probes
  kNone,   // run every request to completion
};

inline const std::vector<std::string>& preempt_mechanism_names() {
  static const std::vector<std::string> names{"clock", "flag", "signal", "hybrid", "none"};
  return names;
}

inline PreemptMechanism parse_preempt_mechanism(std::string_view name) {
  if (name == "clock") return PreemptMechanism::kClock;
  if (name == "flag") return PreemptMechanism::kFlag;
  if (name == "signal") return PreemptMechanism::kSignal;
  if (name == "hybrid") return PreemptMechanism::kHybrid;
  if (name == "none") return PreemptMechanism::kNone;
  throw std::invalid_argument("unknown preemption mechanism '" + std::string(name) +
                              "' (expected clock, flag, signal, hybrid or none)");
}

}  // namespace quanta
