// What makes a run's figures untrustworthy, said with the figures rather than left for the
// reader to notice: a dispatcher that fell behind or stalled on a full ring, latencies
// beyond the histograms' range, more threads than CPUs, requests the app could not build.
// Each warning is {"code": ..., "message": ...} in the run's JSON ("warnings") and a line
// under the text table; `quanta run --strict` exits 3 when there is any.
#pragma once

#include <nlohmann/json.hpp>

#include "experiment/run_result.h"

namespace quanta {

// Share of the generated requests dispatched more than 1 µs late above which a run warns.
inline constexpr double kLateDispatchWarnShare = 0.01;
// Share of the run a runtime thread lost to host stalls above which a run warns.
inline constexpr double kStallWarnShare = 0.01;

nlohmann::json run_warnings(const RunResult& result);

}  // namespace quanta
