#include "io/schedule.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace quanta {

Arrival make_arrival(double t_ns, const ServiceSample& s) {
  const double service = std::min(std::max(std::round(s.service_ns), 1.0), 4e9);
  return {static_cast<uint64_t>(t_ns), static_cast<uint32_t>(service), s.class_index};
}

std::string too_many_arrivals_message(double expected) {
  // %g: a rate of 1e300 is not worth 300 digits; a cast of it to an integer is undefined.
  char text[240];
  std::snprintf(text, sizeof text,
                "--load or --rate-rps x --duration-s asks for %.3g requests, more than the 200 M a schedule holds; "
                "lower --duration-s or the rate",
                expected);
  return text;
}

std::vector<Arrival> make_poisson_schedule(const Workload& workload, const ScheduleSpec& spec) {
  constexpr double kMaxArrivals = 200e6;
  const double expected = spec.rate_rps * spec.duration_s * (spec.profile ? spec.profile->mean(spec.duration_s) : 1.0);
  if (!(expected <= kMaxArrivals)) throw std::invalid_argument(too_many_arrivals_message(expected));
  std::vector<Arrival> schedule;
  schedule.reserve(static_cast<std::size_t>(expected * 1.01 + 64));
  // Separate streams for gaps and service times: changing the rate keeps the sequence of
  // service times the same for a seed.
  Rng gaps(spec.seed * 2 + 1);
  Rng services(spec.seed * 2 + 2);
  const double mean_gap_ns = 1e9 / spec.rate_rps;
  const double end_ns = spec.duration_s * 1e9;
  double t_ns = 0;
  for (;;) {
    const double gap = -std::log(gaps.unit_open_zero()) * mean_gap_ns;
    t_ns = spec.profile ? spec.profile->advance(t_ns, gap) : t_ns + gap;
    if (t_ns >= end_ns) break;
    schedule.push_back(make_arrival(t_ns, workload.sample_at(t_ns, services)));
  }
  return schedule;
}

}  // namespace quanta
