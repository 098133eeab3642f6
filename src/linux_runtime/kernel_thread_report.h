// The JSON of a kernel-thread run: run_to_json's object, plus what says how it ran
// (config.runtime, config.linux_policy, ...) and what only this runtime counts
// (runtime.kernel).
#pragma once

#include <nlohmann/json.hpp>

#include "linux_runtime/kernel_thread_options.h"
#include "linux_runtime/thread_pool_run.h"

namespace quanta {

void add_kernel_thread_fields(nlohmann::json& report, const KernelThreadOptions& options,
                              const KernelThreadTotals& totals);

}  // namespace quanta
