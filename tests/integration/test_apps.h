// Apps written for the integration tests against the public C API.
#pragma once

#include <string>

#include "experiment/run_result.h"
#include "io/workload.h"
#include "quanta/quanta.h"

namespace quanta::testing {

// An app whose requests carry their service time in cycles, built by the spin app's
// make_request, served by `handler`.
quanta_app spin_payload_app(const char* name, void (*handler)(const quanta_request*, quanta_response*));

// Class 0 spins its service time with probes like the synthetic app; class 1 does the
// same inside one preempt-disabled region, and records whether any other request
// finished on its worker meanwhile (response.value = requests finished by others during
// the region; 0 is correct).
const quanta_app& region_app();
// Regions of region_app() during which another request finished on the same worker.
uint64_t region_violations();

// A short, low-load run of the synthetic app with the given policies.
RunResult run_small(const std::string& workload, const std::string& local, const std::string& dispatch,
                    double load, double duration_s, uint64_t seed = 1, const std::string& preempt = "clock",
                    double quantum_us = 2.0);

// Whether the mechanism `preempt` can end a quantum in the middle of a task's own code.
// Not the signal mechanism under ThreadSanitizer: TSan runs a signal's handler only when
// the thread next enters its runtime, never inside the task's code (scripts/test.sh).
inline bool switches_inside_task_code(const std::string& preempt) {
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
  if (preempt == "signal") return false;
#endif
#endif
  (void)preempt;
  return true;
}

}  // namespace quanta::testing
