// Poisson arrivals generated on the fly, request by request, with the very streams and
// rounding of make_poisson_schedule (io/schedule.cc): for a seed the simulator sees the
// arrivals `quanta run` replays, without holding millions of them in memory.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "io/schedule.h"
#include "io/workload.h"

namespace quanta {

class PoissonArrivals {
 public:
  // `profile` (may be null: constant) moves the rate over time, as in the schedule.
  PoissonArrivals(const Workload& workload, double rate_rps, uint64_t seed, const RateProfile* profile = nullptr)
      : workload_(workload), gaps_(seed * 2 + 1), services_(seed * 2 + 2), mean_gap_ns_(1e9 / rate_rps),
        profile_(profile) {}

  // The next arrival; its time is exact in `exact_ns` (the schedule truncates to whole ns).
  Arrival next() {
    const double gap = -std::log(gaps_.unit_open_zero()) * mean_gap_ns_;
    t_ns_ = profile_ ? profile_->advance(t_ns_, gap) : t_ns_ + gap;
    const ServiceSample s = workload_.sample_at(t_ns_, services_);
    const double service = std::min(std::max(std::round(s.service_ns), 1.0), 4e9);
    return {static_cast<uint64_t>(t_ns_), static_cast<uint32_t>(service), s.class_index};
  }
  double exact_ns() const { return t_ns_; }

 private:
  const Workload& workload_;
  Rng gaps_;
  Rng services_;
  double mean_gap_ns_;
  const RateProfile* profile_;
  double t_ns_ = 0;
};

}  // namespace quanta
