#include "io/rate_profile.h"

#include "policy/finite_number.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace quanta {
namespace {

constexpr double kForever = std::numeric_limits<double>::infinity();

double number(std::string_view text, std::string_view spec, const char* what, double low, double high) {
  const std::optional<double> v = parse_finite_number(text);
  if (!v || *v < low || *v > high) {
    char range[64];
    std::snprintf(range, sizeof range, "from %g to %g", low, high);
    throw std::invalid_argument("bad rate profile '" + std::string(spec) + "': " + what + " '" + std::string(text) +
                                "' must be a number " + range);
  }
  return *v;
}

std::vector<std::string_view> split(std::string_view text, char by) {
  std::vector<std::string_view> parts;
  for (;;) {
    const std::size_t at = text.find(by);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text = text.substr(at + 1);
  }
}

}  // namespace

RateProfile RateProfile::parse(std::string_view spec) {
  RateProfile p;
  p.spec_ = std::string(spec);
  if (spec == "constant") return p;
  const std::string usage = " (constant, steps:M@T,M@T,... or bursts:PEAK:EVERY_S:FOR_S)";
  if (spec.substr(0, 6) == "steps:") {
    double last = -1;
    for (std::string_view item : split(spec.substr(6), ',')) {
      const std::size_t at = item.find('@');
      if (at == std::string_view::npos) {
        throw std::invalid_argument("bad rate profile '" + p.spec_ + "': '" + std::string(item) + "' is not M@T" + usage);
      }
      const double m = number(item.substr(0, at), spec, "multiplier", 1e-6, 1e6);
      const double t = number(item.substr(at + 1), spec, "time", 0, 1e9);
      if (t <= last) throw std::invalid_argument("bad rate profile '" + p.spec_ + "': step times must increase");
      if (last < 0 && t != 0) throw std::invalid_argument("bad rate profile '" + p.spec_ + "': the first step is at 0");
      last = t;
      p.steps_.push_back({t * 1e9, m});
    }
    return p;
  }
  if (spec.substr(0, 7) == "bursts:") {
    const std::vector<std::string_view> parts = split(spec.substr(7), ':');
    if (parts.size() != 3) throw std::invalid_argument("bad rate profile '" + p.spec_ + "'" + usage);
    p.burst_peak_ = number(parts[0], spec, "PEAK", 1e-6, 1e6);
    p.burst_every_ns_ = number(parts[1], spec, "EVERY_S", 1e-6, 1e9) * 1e9;
    p.burst_for_ns_ = number(parts[2], spec, "FOR_S", 1e-9, 1e9) * 1e9;
    if (p.burst_for_ns_ >= p.burst_every_ns_) {
      throw std::invalid_argument("bad rate profile '" + p.spec_ + "': FOR_S must be shorter than EVERY_S");
    }
    return p;
  }
  throw std::invalid_argument("bad rate profile '" + p.spec_ + "'" + usage);
}

double RateProfile::at(double t_ns) const {
  if (!steps_.empty()) {
    double m = steps_.front().multiplier;
    for (const Step& s : steps_) {
      if (s.from_ns > t_ns) break;
      m = s.multiplier;
    }
    return m;
  }
  if (burst_every_ns_ > 0) return std::fmod(t_ns, burst_every_ns_) < burst_for_ns_ ? burst_peak_ : 1.0;
  return 1.0;
}

double RateProfile::next_change(double t_ns) const {
  if (!steps_.empty()) {
    for (const Step& s : steps_) {
      if (s.from_ns > t_ns) return s.from_ns;
    }
    return kForever;
  }
  if (burst_every_ns_ > 0) {
    const double start = std::floor(t_ns / burst_every_ns_) * burst_every_ns_;
    const double burst_end = start + burst_for_ns_;
    return t_ns < burst_end ? burst_end : start + burst_every_ns_;
  }
  return kForever;
}

double RateProfile::advance(double t_ns, double base_gap_ns) const {
  if (constant()) return t_ns + base_gap_ns;
  double left = base_gap_ns;
  for (;;) {
    const double m = at(t_ns);
    const double change = next_change(t_ns);
    // Within this piece `left` of base time takes left / m of real time.
    if (change == kForever || t_ns + left / m <= change) return t_ns + left / m;
    left -= (change - t_ns) * m;
    t_ns = change;
  }
}

double RateProfile::mean(double duration_s) const {
  if (constant() || !(duration_s > 0)) return 1.0;
  const double end = duration_s * 1e9;
  double t = 0, area = 0;
  while (t < end) {
    const double change = std::min(next_change(t), end);
    area += (change - t) * at(t);
    t = change;
  }
  return area / end;
}

}  // namespace quanta
