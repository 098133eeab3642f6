// `quanta load`'s output: one JSON object (mode "load", docs/json-output.md) with the
// per-class keys of `quanta run` where they mean the same thing, and a "client" object;
// and a text table made from that JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "io/workload.h"
#include "load/load_stats.h"

namespace quanta {

// What the run was asked to do, as the report repeats it.
struct LoadReportConfig {
  std::string target;
  unsigned connections = 1;
  std::string arrivals = "poisson";
  std::string rate_profile = "constant";  // how the rate moved (io/rate_profile.h)
  double rate_rps = 0;
  double load = 0;              // 0 when the rate was given
  double mean_service_us = 0;   // what --load was converted with
  double duration_s = 0;
  double warmup_frac = 0;
  uint64_t seed = 1;
  double timeout_ms = 1000;
  int cpu = -1;
  std::string wait = "spin";  // --wait
  std::string app_name;
  std::string app_path;
  std::string app_config;
  std::string latency_log;
  std::string latency_log_format;  // hdr or csv; empty without a log
};

nlohmann::json load_to_json(const LoadReportConfig& config, const Workload& workload, const LoadRunOutcome& outcome,
                            const LoadStats& stats);

std::string load_to_text(const nlohmann::json& report);

}  // namespace quanta
