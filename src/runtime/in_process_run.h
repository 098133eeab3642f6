// Runs one experiment in this process: the dispatcher on the calling thread's first
// allowed CPU, one pinned worker on each of the next ones, the app's handler in tasks.
#pragma once

#include "io/workload.h"
#include "quanta/quanta.h"
#include "experiment/run_result.h"

namespace quanta {

// Throws std::invalid_argument for a configuration that cannot run here (names the
// option), std::runtime_error if the app's setup fails or a thread cannot start.
RunResult run_in_process(const RunConfig& config, const Workload& workload, const quanta_app& app);

// The offered rate a config asks for: --rate-rps, or load x workers / mean service time.
double offered_rate_rps(const RunConfig& config, const Workload& workload, unsigned workers);

}  // namespace quanta
