// --max-load for `quanta run` and `quanta sim`: the objective, how many runs the bisection
// makes, and the output of a search (JSON, or a short text table).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiment/max_load.h"
#include "experiment/run_config.h"
#include "run_options.h"

namespace quanta {

struct MaxLoadOptions {
  std::string objective;   // empty: no search
  int steps = 8;
  std::optional<MaxLoadObjective> parsed() const {
    if (objective.empty()) return std::nullopt;
    return parse_max_load_objective(objective);
  }
};

// Registers --max-load (which excludes --load and --rate-rps: the search sets the load) and
// --max-load-steps on a command that already has the run options.
void add_max_load_options(CLI::App& command, MaxLoadOptions& options);

// One search per config; `run_one` makes one run and returns its JSON. Prints one object
// (one config) or {"searches": [...]} with --format json, a table per search with text.
int max_load_command(const std::vector<RunConfig>& configs, const MaxLoadOptions& options, const std::string& format,
                     const std::function<nlohmann::json(const RunConfig&)>& run_one);

// `quanta run --max-load`: the search over real runs of the built-in spin app, on the
// runtime the options choose (--runtime quanta or linux).
int run_max_load_command(const RunOptions& run_options, const MaxLoadOptions& options);

}  // namespace quanta
