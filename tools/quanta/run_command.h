#pragma once

#include <nlohmann/json.hpp>

#include "app_choice.h"
#include "io/workload.h"
#include "run_options.h"

namespace quanta {

// One real run of `config` on the runtime the options choose (quanta's, or the Linux
// kernel-thread baseline), as the JSON object `quanta run --format json` prints.
nlohmann::json run_once(const RunOptions& options, const RunConfig& config, const Workload& workload,
                        const AppChoice& apps);

// For an app without declared service times and a --load (not --rate-rps): measures its
// mean service time once and stores it in every config, so --load means the same in each.
void measure_mean_service_once(std::vector<RunConfig>& configs, const Workload& workload, const AppChoice& apps,
                               const RunOptions& options);

// 3 with --strict when any report carries a warning (after saying so on stderr), else 0.
int strict_status(const RunOptions& options, const std::vector<nlohmann::json>& reports);

// Runs every configuration the options name, on the same schedule, and prints them.
// Returns the process exit status.
int run_command(const RunOptions& options);

}  // namespace quanta
