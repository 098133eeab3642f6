#include "experiment/max_load.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace quanta {
namespace {

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw std::invalid_argument("--max-load '" + std::string(text) + "': " + why +
                              " (expected [untouched:]CLASS:METRIC<=X, e.g. short:p99.9-slowdown<=50 or "
                              "untouched:all:p99-us<=50; METRIC is p50, p99, p99.9, mean or max followed by "
                              "-slowdown or -us)");
}

constexpr std::string_view kUntouchedPrefix = "untouched:";

}  // namespace

MaxLoadObjective parse_max_load_objective(std::string_view text) {
  MaxLoadObjective o;
  o.text = std::string(text);
  // Errors quote the whole text; the rest is parsed without the prefix.
  std::string_view rest = text;
  if (rest.starts_with(kUntouchedPrefix)) {
    o.untouched = true;
    rest.remove_prefix(kUntouchedPrefix.size());
  }
  const std::size_t le = rest.find("<=");
  if (le == std::string_view::npos) bad(text, "no '<='");
  // The class key may itself contain ':' (a spec like exp:1), so split at the last one.
  const std::string_view lhs = rest.substr(0, le);
  const std::size_t colon = lhs.rfind(':');
  if (colon == std::string_view::npos || colon == 0) bad(text, "no CLASS: before the metric");
  o.target = std::string(lhs.substr(0, colon));
  const std::string_view metric = lhs.substr(colon + 1);
  std::string_view stat;
  if (metric.ends_with("-slowdown")) {
    o.slowdown = true;
    stat = metric.substr(0, metric.size() - 9);
  } else if (metric.ends_with("-us")) {
    o.slowdown = false;
    stat = metric.substr(0, metric.size() - 3);
  } else {
    bad(text, "metric '" + std::string(metric) + "' must end in -slowdown or -us");
  }
  if (stat != "p50" && stat != "p99" && stat != "p99.9" && stat != "mean" && stat != "max") {
    bad(text, "unknown statistic '" + std::string(stat) + "'");
  }
  o.stat = std::string(stat);
  const std::string_view bound = rest.substr(le + 2);
  const auto [end, error] = std::from_chars(bound.data(), bound.data() + bound.size(), o.limit);
  if (bound.empty() || error != std::errc() || end != bound.data() + bound.size() || !std::isfinite(o.limit) ||
      o.limit < 0) {
    bad(text, "bound '" + std::string(bound) + "' is not a non-negative number");
  }
  if (o.target == "all") o.target = "overall";
  return o;
}

double objective_value(const MaxLoadObjective& o, const nlohmann::json& run) {
  const nlohmann::json* stats = &run;
  if (o.untouched) {
    const auto it = run.find("untouched");
    if (it == run.end() || !it->is_object()) {
      throw std::invalid_argument("--max-load '" + o.text +
                                  "': the run has no untouched statistics (its runtime did not judge which requests "
                                  "a host stall touched); drop the 'untouched:' prefix to use all measured requests");
    }
    stats = &*it;
  }
  const nlohmann::json* entry = nullptr;
  if (o.target == "overall") {
    entry = &stats->at("overall");
  } else {
    const nlohmann::json& classes = stats->at("classes");
    if (classes.contains(o.target)) entry = &classes[o.target];
    for (const auto& [key, value] : classes.items()) {
      if (!entry && value.at("label") == o.target) entry = &value;
    }
    if (!entry) {
      std::string known;
      for (const auto& [key, value] : classes.items()) {
        known += (known.empty() ? "" : ", ") + value.at("label").get<std::string>() + " (" + key + ")";
      }
      throw std::invalid_argument("--max-load '" + o.text + "': the workload has no class '" + o.target +
                                  "' (classes: " + known + ", or overall)");
    }
  }
  return (*entry).at(o.slowdown ? "slowdown" : "sojourn_us").at(o.stat).get<double>();
}

nlohmann::json find_max_load(const MaxLoadObjective& objective,
                             const std::function<nlohmann::json(double load)>& run_at_load,
                             const MaxLoadSearch& search) {
  double low = search.low;
  double high = search.high;
  nlohmann::json points = nlohmann::json::array();
  nlohmann::json best = nullptr;
  for (int i = 0; i < search.steps; ++i) {
    const double load = (low + high) / 2;
    nlohmann::json run = run_at_load(load);
    const double value = objective_value(objective, run);
    const bool met = value <= objective.limit;
    points.push_back({{"load", load}, {"rate_rps", run["config"]["rate_rps"]}, {"value", value}, {"met", met}});
    if (met) {
      low = load;
      best = std::move(run);
    } else {
      high = load;
    }
  }
  const bool found = !best.is_null();
  return {{"objective", objective.text},
          {"max_load", found ? low : 0.0},
          {"max_rate_rps", found ? best["config"]["rate_rps"].get<double>() : 0.0},
          {"resolution", high - low},
          {"points", points},
          {"run", best}};
}

}  // namespace quanta
