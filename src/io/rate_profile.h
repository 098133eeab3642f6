// How the offered rate moves over a run, as a multiple of the base rate (--load or
// --rate-rps): constant, steps at given times, or periodic bursts (LibPreemptible's
// 40 -> 110 kRPS spikes are bursts:2.75:...). Arrivals stay Poisson, with the rate of the
// moment: a gap drawn at the base rate is stretched through the profile (time rescaling),
// so a constant profile gives exactly the arrivals it always gave for a seed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace quanta {

class RateProfile {
 public:
  // Always the base rate.
  RateProfile() = default;

  // "constant", "steps:M@T,M@T,..." (multiplier M from T seconds on; the first T must be
  // 0), or "bursts:PEAK:EVERY_S:FOR_S" (PEAK times the base rate for FOR_S at the start of
  // every EVERY_S, the base rate otherwise). Throws std::invalid_argument naming the
  // problem.
  static RateProfile parse(std::string_view spec);

  bool constant() const { return steps_.empty() && burst_every_ns_ == 0; }
  const std::string& spec() const { return spec_; }

  // The multiplier at `t_ns`.
  double at(double t_ns) const;

  // The time from `t_ns` at which `base_gap_ns` of base-rate time has passed through the
  // profile: where the next arrival falls (the integral of the multiplier from t_ns to
  // the result is base_gap_ns).
  double advance(double t_ns, double base_gap_ns) const;

  // The mean multiplier over [0, duration): the offered rate over the run is the base rate
  // times this.
  double mean(double duration_s) const;

 private:
  struct Step {
    double from_ns;
    double multiplier;
  };
  // Where the multiplier next changes after `t_ns` (infinity: never).
  double next_change(double t_ns) const;

  std::string spec_ = "constant";
  std::vector<Step> steps_;
  double burst_peak_ = 1;
  double burst_every_ns_ = 0;
  double burst_for_ns_ = 0;
};

}  // namespace quanta
