// One experiment in this process: the workload's open-loop schedule, replayed by the
// generator source into a quanta Runtime that serves the app's handler; the result in the
// shape every report shares (RunResult).
#pragma once

#include <string>
#include <vector>

#include "experiment/run_result.h"
#include "io/generator_source.h"
#include "io/schedule.h"
#include "io/workload.h"
#include "quanta/quanta.h"
#include "runtime/runtime.h"

namespace quanta {

// Throws std::invalid_argument for a configuration that cannot run here (names the
// option), std::runtime_error if the app's setup fails or a thread cannot start.
RunResult run_in_process(const RunConfig& config, const Workload& workload, const quanta_app& app);

// The offered rate a config asks for: --rate-rps, or load x workers / mean service time
// (`mean_service_us` > 0).
double offered_rate_rps(const RunConfig& config, double mean_service_us, unsigned workers);

// The runtime part of a run's configuration.
RuntimeConfig runtime_config_of(const RunConfig& config, std::size_t class_count);

// The mean CPU time of the app's requests, measured: `requests` requests drawn from the
// workload's mix, built by make_request and run one at a time on one worker without
// preemption. For --load with an app that declares no service times.
double measure_mean_service_us(const Workload& workload, const quanta_app& app, const RunConfig& config,
                               uint32_t requests = 2000);

// The mean service time --load converts with, and its source: the workload's (or the
// app's declared), else measured (measure_mean_service_us). Not measured with --rate-rps.
struct MeanService {
  double us = 0;
  std::string source;  // "workload", "app", "measured", or "" (not needed)
};
MeanService mean_service_for(const RunConfig& config, const Workload& workload, const quanta_app& app);

// What every generated run starts with, whichever runtime serves it: fills in `result`'s
// rate, mean service time and app, and returns the schedule.
std::vector<Arrival> plan_run(const RunConfig& config, const Workload& workload, const quanta_app& app,
                              unsigned workers, RunResult& result);
// The generator's options for a run: its record pool holds as many requests as the
// runtime admits at once (every worker's ring and task slots full).
GeneratorOptions generator_options_of(const RunConfig& config, unsigned workers);

}  // namespace quanta
