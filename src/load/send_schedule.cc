#include "load/send_schedule.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace quanta {

ArrivalProcess parse_arrival_process(const std::string& name) {
  if (name == "poisson") return ArrivalProcess::kPoisson;
  if (name == "constant") return ArrivalProcess::kConstant;
  throw std::invalid_argument("unknown arrival process '" + name + "' (expected poisson or constant)");
}

std::vector<Arrival> make_send_schedule(const Workload& workload, const ScheduleSpec& spec, ArrivalProcess process) {
  if (process == ArrivalProcess::kPoisson) return make_poisson_schedule(workload, spec);
  constexpr double kMaxSends = 200e6;  // the limit make_poisson_schedule keeps
  const double mean_multiplier = spec.profile ? spec.profile->mean(spec.duration_s) : 1.0;
  if (!(spec.rate_rps * spec.duration_s * mean_multiplier <= kMaxSends)) {
    throw std::invalid_argument(too_many_arrivals_message(spec.rate_rps * spec.duration_s * mean_multiplier));
  }
  // Same service draws as Poisson for this seed, evenly spaced in time (at the rate of the
  // moment, with a profile); as many as fit.
  const double gap_ns = 1e9 / spec.rate_rps;
  const double end_ns = spec.duration_s * 1e9;
  const std::size_t count = static_cast<std::size_t>(std::max(0.0, std::ceil(end_ns / gap_ns * mean_multiplier)));
  Rng services(spec.seed * 2 + 2);
  std::vector<Arrival> constant;
  constant.reserve(count);
  double t_ns = 0;
  for (std::size_t i = 0;; ++i) {
    if (i > 0) t_ns = spec.profile ? spec.profile->advance(t_ns, gap_ns) : static_cast<double>(i) * gap_ns;
    if (t_ns >= end_ns) break;
    constant.push_back(make_arrival(t_ns, workload.sample_at(t_ns, services)));
  }
  return constant;
}

}  // namespace quanta
