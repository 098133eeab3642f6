// The JSON of a kernel-thread run: run_to_json's object, plus what says how it ran
// (config.runtime, config.linux_policy, ...) and what only this runtime counts
// (runtime.kernel).
#pragma once

#include <nlohmann/json.hpp>

#include "linux_runtime/kernel_thread_options.h"
#include "experiment/run_config.h"
#include "linux_runtime/kernel_thread_server.h"

namespace quanta {

// The report names what ran instead of the quanta policies, which do not apply: local
// "sched-<policy>", dispatch "shared-queue", preempt "kernel".
void describe_kernel_threads(RunConfig& config, const KernelThreadOptions& options);

void add_kernel_thread_fields(nlohmann::json& report, const KernelThreadOptions& options,
                              const KernelThreadTotals& totals);

}  // namespace quanta
