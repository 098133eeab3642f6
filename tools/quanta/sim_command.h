// `quanta sim`: the run's workload and policies on the discrete-event simulator.
#pragma once

#include <nlohmann/json.hpp>

#include "io/workload.h"
#include "sim/sim_config.h"
#include "sim_options.h"

namespace quanta {

// The JSON of `quanta run` with "mode": "sim", plus a "sim" object: the overheads charged
// and the simulator's own speed (events, wall_s, requests_per_s).
nlohmann::json sim_to_json(const SimConfig& config, const SimResult& result, const Workload& workload);

int sim_command(const SimOptions& options);

}  // namespace quanta
