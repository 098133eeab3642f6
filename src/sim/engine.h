// The discrete-event simulator: quanta's two-level scheduler (and the central, JBSQ and
// stealing alternatives) on simulated time, in ns. Dispatch and local decisions are made by
// the policy objects of src/policy/, the same code the runtime runs; this file only models
// time: arrivals, quanta, overheads. See docs/sim.md for the model and what it leaves out.
#pragma once

#include "io/workload.h"
#include "sim/sim_config.h"

namespace quanta {

// The rate a config offers: --rate-rps, or --load x workers / mean service time (the same
// rule as `quanta run`).
double sim_offered_rate_rps(const RunConfig& config, const Workload& workload);

// Runs one simulation. Deterministic: the same config, workload and seed give the same
// result on any machine. Throws std::invalid_argument for a config it cannot run (an
// unknown policy name, zero workers).
SimResult simulate(const SimConfig& config, const Workload& workload, SimObserver* observer = nullptr);

}  // namespace quanta
