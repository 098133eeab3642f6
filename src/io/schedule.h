// An open-loop arrival schedule, computed before the run so generating it costs the
// dispatcher nothing: Poisson arrivals (exponential gaps) at a fixed rate, each with a
// service time drawn from the workload. Times are ns from the start of the run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/rate_profile.h"
#include "io/workload.h"

namespace quanta {

struct Arrival {
  uint64_t arrival_ns;
  uint32_t service_ns;   // nominal service time, at least 1
  uint32_t class_index;
};

struct ScheduleSpec {
  double rate_rps;                         // the base rate
  double duration_s;
  uint64_t seed;
  const RateProfile* profile = nullptr;    // how the rate moves (null: constant)
};

// The arrival at t_ns of a request drawn as `s`: its service time rounded to whole ns and
// kept within what an Arrival holds (1 ns to 4 s). Every schedule maker builds its
// arrivals with this, so Poisson, constant and trace-file schedules agree.
Arrival make_arrival(double t_ns, const ServiceSample& s);

// Throws std::invalid_argument if the schedule would not fit in memory (over 200 M
// arrivals): lower --duration-s or the rate.
std::vector<Arrival> make_poisson_schedule(const Workload& workload, const ScheduleSpec& spec);
// That error's message, naming the options behind rate x duration (`expected` requests).
std::string too_many_arrivals_message(double expected);

}  // namespace quanta
