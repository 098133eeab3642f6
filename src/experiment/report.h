// Turns run results into the two output formats: one JSON object per run (the schema in
// docs/json-output.md, shared by `quanta run` and the simulator), and a text table that
// puts several runs of the same workload side by side.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "experiment/run_result.h"
#include "io/workload.h"

namespace quanta {

// `classes` and `overall` cover every measured request; `untouched` repeats them over the
// requests no host stall touched, and is left out when the result has no such statistics
// (an empty or short `untouched` set: its producer did not judge requests).
nlohmann::json run_to_json(const RunResult& result, const Workload& workload, const char* mode);

// Columns are runs; rows are per-class and overall figures, then, for runs that have them,
// the same over the requests no host stall touched. Reads only the JSON, so any producer of
// the schema can be shown this way.
// Warnings (run_warnings.h) follow the table, a line each.
std::string runs_to_text(const std::vector<nlohmann::json>& runs);

// Whether any of the runs carries a warning (for --strict).
bool any_warnings(const std::vector<nlohmann::json>& runs);

}  // namespace quanta
