#include "io/workload.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

namespace quanta {
namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

[[noreturn]] void bad(std::string_view spec, const std::string& why) {
  throw std::invalid_argument("bad workload '" + std::string(spec) + "': " + why +
                              " (names: extreme-bimodal, high-bimodal, exp1, fixed1, tpcc; specs: fixed:X, "
                              "exp:MEAN, bimodal:P:A:B, lognormal:MEAN:SIGMA, times in us)");
}

double number(std::string_view spec, std::string_view field, std::string_view what) {
  double value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (error != std::errc() || end != field.data() + field.size() || !std::isfinite(value)) {
    bad(spec, std::string(what) + " '" + std::string(field) + "' is not a number");
  }
  return value;
}

double positive(std::string_view spec, std::string_view field, std::string_view what) {
  const double value = number(spec, field, what);
  if (value <= 0) bad(spec, std::string(what) + " must be above 0");
  return value;
}

// A request's service time is held in whole ns in 32 bits: from 1 ns to 4 s. A time outside
// would be rounded into that range while the report (and the rate --load derives from the
// mean) still used the spec's time.
constexpr double kLongestServiceUs = 4e6;
constexpr double kShortestServiceUs = 1e-3;

double service_time(std::string_view spec, std::string_view field, std::string_view what) {
  const double value = positive(spec, field, what);
  if (value > kLongestServiceUs) bad(spec, std::string(what) + " must be at most 4e6 us (4 s)");
  if (value < kShortestServiceUs) bad(spec, std::string(what) + " must be at least 0.001 us (1 ns)");
  return value;
}

// Beyond this sigma a lognormal's mean rests on draws so rare that a run of millions of
// requests does not see them, and the measured mean falls far short of the spec's.
constexpr double kLargestLognormalSigma = 3.0;

// The part of an exponential's or a lognormal's mean that lies in draws above the 4 s cap
// (cut to 4 s when drawn). Exponential: e^-x (1 + x), x = cap / mean. Lognormal: the
// probability that a normal exceeds (ln cap - mu) / sigma - sigma.
double share_of_mean_above_cap(double mean_us, double sigma) {
  if (sigma == 0) {
    const double x = kLongestServiceUs / mean_us;
    return std::exp(-x) * (1 + x);
  }
  const double mu = std::log(mean_us) - sigma * sigma / 2;
  const double z = (std::log(kLongestServiceUs) - mu) / sigma - sigma;
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

// The mean of an exponential (sigma 0) or lognormal spec, refused when the cut at 4 s would
// take more than 1% of it.
double mean_of_continuous(std::string_view spec, std::string_view field, double sigma) {
  const double value = positive(spec, field, "mean");
  if (value < kShortestServiceUs) bad(spec, "mean must be at least 0.001 us (1 ns)");
  if (share_of_mean_above_cap(value, sigma) > 0.01) {
    bad(spec, "mean too large: over 1% of it would come from draws above 4 s, which are cut to 4 s");
  }
  return value;
}

// The shortest text that reads back as `us`: two different times never share a key (as
// "%g" made 1.0000001 and 1.0000002 both "1").
std::string format_us(double us) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, us);
  return std::string(text, result.ptr);
}

}  // namespace

const std::vector<std::string>& Workload::names() {
  static const std::vector<std::string> list{"extreme-bimodal", "high-bimodal", "exp1", "fixed1", "tpcc"};
  return list;
}

Workload Workload::discrete(std::string spec, std::vector<std::pair<double, double>> probability_and_us) {
  // Merge equal service times (bimodal:50:1:1 is one class) and order classes by time.
  std::map<double, double> by_time;
  for (const auto& [p, us] : probability_and_us) by_time[us] += p;
  Workload w;
  w.spec_ = std::move(spec);
  w.shape_ = Shape::kDiscrete;
  double total = 0;
  for (const auto& [us, p] : by_time) total += p;
  double running = 0;
  for (const auto& [us, p] : by_time) {
    if (p <= 0) continue;
    const std::string key = format_us(us);
    w.classes_.push_back({key, key, us, p / total});
    running += p / total;
    w.cumulative_.push_back(running);
    w.mean_us_ += us * p / total;
  }
  w.cumulative_.back() = 1.0;  // guard against rounding
  if (w.classes_.size() == 1) {
    w.classes_[0].label = "all";
  } else {
    w.classes_.front().label = "short";
    w.classes_.back().label = "long";
  }
  return w;
}

Workload Workload::continuous(std::string spec, Shape shape, double mean_us, double sigma) {
  Workload w;
  w.spec_ = std::move(spec);
  w.shape_ = shape;
  w.mean_us_ = mean_us;
  w.sigma_ = sigma;
  w.log_mu_ = std::log(mean_us) - sigma * sigma / 2;  // so that E[X] = mean_us
  w.classes_.push_back({w.spec_, "all", mean_us, 1.0});
  return w;
}

Workload Workload::declared(std::string name, const std::vector<DeclaredClass>& classes) {
  auto bad_class = [&](std::size_t i, const std::string& why) {
    throw std::invalid_argument("the app '" + name + "' declares a bad class " + std::to_string(i) + ": " + why);
  };
  Workload w;
  w.spec_ = std::move(name);
  w.shape_ = Shape::kDiscrete;
  w.app_defined_ = true;
  double total = 0;
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const DeclaredClass& c = classes[i];
    if (c.name.empty()) bad_class(i, "it has no name");
    for (std::size_t j = 0; j < i; ++j) {
      if (classes[j].name == c.name) bad_class(i, "the name '" + c.name + "' is used twice");
    }
    if (!std::isfinite(c.share) || c.share < 0) bad_class(i, "'" + c.name + "' has a share that is not a number >= 0");
    if (!std::isfinite(c.service_us) || c.service_us < 0 || c.service_us > 4e6) {
      bad_class(i, "'" + c.name + "' has a service time that is not a number from 0 to 4e6 us");
    }
    total += c.share;
  }
  if (!(total > 0)) throw std::invalid_argument("the app '" + w.spec_ + "' declares no class with a share above 0");
  bool known = true;
  double running = 0;
  for (const DeclaredClass& c : classes) {
    w.classes_.push_back({c.name, c.name, c.service_us, c.share / total});
    running += c.share / total;
    w.cumulative_.push_back(running);
    w.mean_us_ += c.service_us * c.share / total;
    if (c.service_us <= 0 && c.share > 0) known = false;
  }
  w.cumulative_.back() = 1.0;
  if (!known) w.mean_us_ = 0;
  return w;
}

Workload Workload::parse(std::string_view spec) {
  const std::string s(spec);
  if (spec == "extreme-bimodal") return discrete(s, {{99.5, 0.5}, {0.5, 500}});
  if (spec == "high-bimodal") return discrete(s, {{50, 1}, {50, 100}});
  if (spec == "exp1") return continuous(s, Shape::kExponential, 1.0, 0);
  if (spec == "fixed1") return discrete(s, {{1, 1.0}});
  if (spec == "tpcc") return discrete(s, {{44, 5.7}, {4, 6}, {44, 20}, {4, 88}, {4, 100}});

  const auto parts = split(spec, ':');
  const std::string_view kind = parts[0];
  auto expect_fields = [&](std::size_t n, const char* form) {
    if (parts.size() != n) bad(spec, std::string("expected ") + form);
  };
  if (kind == "fixed") {
    expect_fields(2, "fixed:X");
    return discrete(s, {{1, service_time(spec, parts[1], "service time")}});
  }
  if (kind == "exp") {
    expect_fields(2, "exp:MEAN");
    // The tail beyond 4 s is cut: a mean that puts more than a trace of it there is refused.
    return continuous(s, Shape::kExponential, mean_of_continuous(spec, parts[1], 0), 0);
  }
  if (kind == "bimodal") {
    expect_fields(4, "bimodal:P:A:B");
    const double p = number(spec, parts[1], "percentage");
    if (p < 0 || p > 100) bad(spec, "percentage must be within 0..100");
    return discrete(s, {{p, service_time(spec, parts[2], "service time A")},
                        {100 - p, service_time(spec, parts[3], "service time B")}});
  }
  if (kind == "lognormal") {
    expect_fields(3, "lognormal:MEAN:SIGMA");
    const double sigma = positive(spec, parts[2], "sigma");
    if (sigma > kLargestLognormalSigma) {
      bad(spec, "sigma must be at most 3 (beyond it the mean rests on draws a run never sees)");
    }
    return continuous(s, Shape::kLognormal, mean_of_continuous(spec, parts[1], sigma), sigma);
  }
  bad(spec, "unknown name or spec kind '" + std::string(kind) + "'");
}

ServiceSample Workload::sample(Rng& rng) const {
  if (first_) return sample_at(0, rng);  // a shifting workload, untimed: its first phase
  switch (shape_) {
    case Shape::kExponential:
      return {0, -std::log(rng.unit_open_zero()) * mean_us_ * 1000.0};
    case Shape::kLognormal: {
      // Box-Muller: one normal deviate from two uniforms.
      const double u1 = rng.unit_open_zero();
      const double u2 = rng.unit_open_zero();
      const double normal = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
      return {0, std::exp(log_mu_ + sigma_ * normal) * 1000.0};
    }
    case Shape::kDiscrete:
      break;
  }
  const double u = rng.unit_open_zero();
  const auto it = std::lower_bound(cumulative_.begin(), cumulative_.end(), u);
  const auto index = static_cast<uint32_t>(std::min<std::size_t>(it - cumulative_.begin(), classes_.size() - 1));
  return {index, classes_[index].service_us * 1000.0};
}

Workload Workload::shifting(const Workload& first, std::string_view shifts) {
  auto bad_shift = [&](const std::string& why) {
    throw std::invalid_argument("bad --workload-shift '" + std::string(shifts) + "': " + why);
  };
  if (first.app_defined_) bad_shift("the app declares its own classes ('" + first.spec_ + "'), which cannot shift");
  if (!first.phases_.empty()) bad_shift("the workload shifts already");
  if (shifts.empty()) bad_shift("expected SPEC@T_S,... (service times from SPEC from T_S seconds on)");
  Workload w = first;
  w.first_ = std::make_shared<const Workload>(first);
  w.shift_spec_ = std::string(shifts);
  for (uint32_t i = 0; i < first.classes_.size(); ++i) w.first_class_index_.push_back(i);
  double last_s = 0;
  for (std::string_view item : split(shifts, ',')) {
    const std::size_t at = item.rfind('@');
    if (at == std::string_view::npos) bad_shift("'" + std::string(item) + "' is not SPEC@T_S");
    const std::string_view time = item.substr(at + 1);
    double from_s = 0;
    const auto [end, error] = std::from_chars(time.data(), time.data() + time.size(), from_s);
    if (error != std::errc() || end != time.data() + time.size() || !std::isfinite(from_s)) {
      bad_shift("the time '" + std::string(time) + "' is not a number of seconds");
    }
    if (!(from_s > last_s)) bad_shift("the times must be above 0 and increasing ('" + std::string(item) + "')");
    if (from_s > 1e9) bad_shift("the time '" + std::string(time) + "' is over 1e9 s");
    last_s = from_s;
    Workload phase;
    try {
      phase = parse(item.substr(0, at));
    } catch (const std::invalid_argument& e) {
      bad_shift(e.what());
    }
    Phase ph{from_s * 1e9, nullptr, {}};
    for (const ServiceClass& c : phase.classes_) {
      uint32_t index = 0;
      while (index < w.classes_.size() && w.classes_[index].key != c.key) ++index;
      if (index == w.classes_.size()) {
        ServiceClass added = c;
        for (const ServiceClass& other : w.classes_) {
          if (other.label == added.label) added.label = added.key;
        }
        w.classes_.push_back(added);
      }
      ph.class_index.push_back(index);
    }
    if (!phase.service_known()) w.mean_us_ = 0;
    ph.workload = std::make_shared<const Workload>(std::move(phase));
    w.phases_.push_back(std::move(ph));
  }
  // "all" means every request once there is more than one class: name the class instead.
  if (w.classes_.size() > 1) {
    for (ServiceClass& c : w.classes_) {
      if (c.label == "all") c.label = c.key;
    }
  }
  w.shape_ = Shape::kDiscrete;  // sample_class: by the class's phase below
  return w;
}

ServiceSample Workload::sample_at(double t_ns, Rng& rng) const {
  if (phases_.empty()) return sample(rng);
  // The last phase that has begun; before the first shift, the first workload.
  const Workload* phase = first_.get();
  const std::vector<uint32_t>* index = &first_class_index_;
  for (const Phase& p : phases_) {
    if (p.from_ns > t_ns) break;
    phase = p.workload.get();
    index = &p.class_index;
  }
  ServiceSample s = phase->sample(rng);
  s.class_index = (*index)[s.class_index];
  return s;
}

ServiceSample Workload::sample_class(uint32_t class_index, Rng& rng) const {
  if (first_) {
    // A shifting workload: as the first phase that has the class.
    auto from = [&](const Workload& phase, const std::vector<uint32_t>& index) -> std::optional<ServiceSample> {
      for (uint32_t local = 0; local < index.size(); ++local) {
        if (index[local] == class_index) return ServiceSample{class_index, phase.sample_class(local, rng).service_ns};
      }
      return std::nullopt;
    };
    if (auto s = from(*first_, first_class_index_)) return *s;
    for (const Phase& p : phases_) {
      if (auto s = from(*p.workload, p.class_index)) return *s;
    }
  }
  if (shape_ != Shape::kDiscrete) return sample(rng);
  return {class_index, classes_[class_index].service_us * 1000.0};
}

}  // namespace quanta
