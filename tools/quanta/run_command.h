#pragma once

#include <nlohmann/json.hpp>

#include "io/workload.h"
#include "run_options.h"

namespace quanta {

// One real run of `config` on the runtime the options choose (quanta's, or the Linux
// kernel-thread baseline), as the JSON object `quanta run --format json` prints.
nlohmann::json run_once(const RunOptions& options, const RunConfig& config, const Workload& workload);

// Runs every configuration the options name, on the same schedule, and prints them.
// Returns the process exit status.
int run_command(const RunOptions& options);

}  // namespace quanta
