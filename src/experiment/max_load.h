// --max-load '[untouched:]CLASS:METRIC<=X': the largest offered load at which a run still
// meets a latency objective, found by bisection. Generic over how a run is made (a callable
// from load to the run's JSON, the schema of report.h), so `quanta run` and `quanta sim`
// share it.
//
// untouched:  optional: read the metric from the run's `untouched` statistics (the requests
//             no host stall touched) instead of those of every measured request. A run
//             without them (its runtime did not judge requests) is an error, not a fallback.
// CLASS   a class label (short, long, all), a class key ("0.5", "500"), or overall.
//         "all" means overall too: a one-class workload labels its class "all".
// METRIC  p50 | p99 | p99.9 | mean | max, then -slowdown or -us (sojourn in µs).
// X       the bound, a non-negative number.
// Examples: short:p99.9-slowdown<=50 (Concord's objective, the one the docs and scripts
// default to), untouched:short:p99.9-slowdown<=50, all:p99-us<=50, 500:p99-slowdown<=20.
//
// Output (find_max_load), one JSON object:
//   {"objective": "short:p99.9-slowdown<=50",
//    "max_load": 0.62,            // largest load tried that met it (0 if none did)
//    "max_rate_rps": 3.3e6,       // the rate of that run (0 if none)
//    "resolution": 0.0039,        // the bracket's width when the search stopped
//    "points": [{"load": 0.5, "rate_rps": ..., "value": 4.1, "met": true}, ...],  // in the order run
//    "run": {...}}                // the full JSON of the run at max_load, or null
// The search assumes the metric grows with load (true of sojourn and slowdown percentiles
// in a stable queue, up to sampling noise: use enough requests per point).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace quanta {

struct MaxLoadObjective {
  std::string text;    // as given
  std::string target;  // class label or key, or "overall"
  std::string stat;    // p50, p99, p99.9, mean, max
  bool slowdown = true;  // false: sojourn in µs
  bool untouched = false;  // true: from the run's "untouched" statistics, not the raw ones
  double limit = 0;
};

// Throws std::invalid_argument naming what is wrong with `text`.
MaxLoadObjective parse_max_load_objective(std::string_view text);

// The objective's metric in a run's JSON. Throws std::invalid_argument if the run's workload
// has no such class, or if the objective asks for untouched statistics the run lacks.
double objective_value(const MaxLoadObjective& objective, const nlohmann::json& run);

struct MaxLoadSearch {
  double low = 0.0;    // assumed met (not run)
  double high = 1.0;   // assumed not met (not run): a load of 1 saturates the workers
  int steps = 8;       // runs; the answer is within (high - low) / 2^steps
};

nlohmann::json find_max_load(const MaxLoadObjective& objective,
                             const std::function<nlohmann::json(double load)>& run_at_load,
                             const MaxLoadSearch& search = {});

}  // namespace quanta
