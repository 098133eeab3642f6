// The send times of an open-loop client, drawn before the run: Poisson (exponential gaps,
// the field's default) or constant gaps, each request with a class and service time drawn
// from the workload as `quanta run` draws them.
#pragma once

#include <string>
#include <vector>

#include "io/schedule.h"

namespace quanta {

enum class ArrivalProcess { kPoisson, kConstant };

// "poisson" or "constant"; throws std::invalid_argument otherwise.
ArrivalProcess parse_arrival_process(const std::string& name);

// Poisson: make_poisson_schedule (the same draws as `quanta run` for a seed). Constant:
// request i at i / rate, with the service times of the same seed's stream.
std::vector<Arrival> make_send_schedule(const Workload& workload, const ScheduleSpec& spec, ArrivalProcess process);

}  // namespace quanta
