// `quanta sim`'s options: every `quanta run` option (so a script can switch commands), the
// size of the run in requests, the overheads the model charges, and --max-load.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "max_load_options.h"
#include "run_options.h"
#include "sim/sim_config.h"

namespace quanta {

struct SimOptions {
  RunOptions run;
  std::optional<uint64_t> jobs;
  std::string calibration;  // a file; explicit overhead options win over its values
  std::optional<double> preempt_overhead_ns;
  std::optional<double> probe_overhead_pct;
  std::optional<double> dispatch_ns;
  std::optional<double> quantum_jitter_ns;
  std::optional<double> request_overhead_ns;
  std::optional<double> flag_notification_ns;
  std::optional<double> signal_latency_ns;
  std::optional<double> signal_cpu_ns;
  std::optional<double> monitor_poll_ns;
  std::optional<double> requeue_ns;
  bool stack_kib_given = false;  // an option the model has nothing to do with: refused
  std::string stalls;        // quanta-bench-stalls --trace JSON to replay
  std::string stall_window = "drain";
  MaxLoadOptions max_load;
};

void add_sim_options(CLI::App& command, SimOptions& options);

// One SimConfig per (local, dispatch, preempt) combination. --dispatch also takes the
// simulator-only policies (central, jbsq:K, steal). Throws CLI::ValidationError naming the
// option for an unknown name, std::invalid_argument for a bad --calibration file.
std::vector<SimConfig> expand_sim_runs(const SimOptions& options);

}  // namespace quanta
