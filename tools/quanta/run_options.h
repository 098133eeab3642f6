// The options `quanta run` shares with the commands that will mirror it (sim): registered
// on a CLI11 subcommand, validated, and expanded into one RunConfig per combination of
// the comma-separated policy lists.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "experiment/run_config.h"
#include "linux_runtime/kernel_thread_options.h"

namespace quanta {

struct RunOptions {
  RunConfig base;
  std::string local_list = "ps";
  std::string dispatch_list = "jsq-msq";
  std::string preempt_list = "clock";
  std::string format = "text";
  std::string runtime = "quanta";       // quanta | linux (the kernel-thread baseline)
  KernelThreadOptions kernel_threads;   // --runtime linux only
  bool workload_given = false;          // --workload was on the command line
  bool strict = false;                  // exit 3 when a run has warnings
};

// `simulated`: the workers are simulated, so --workers may be any number from 1 (a real
// run is limited to this machine's CPUs).
void add_run_options(CLI::App& command, RunOptions& options, bool simulated = false);

// The runtime's resources and its stall threshold, the same on every command that builds a
// runtime (run, sim, serve): --task-slots, --stack-kib, --ring-capacity, --stall-threshold-us.
void add_runtime_resource_options(CLI::App& command, RunConfig& config);
// --idle spin|yield|block (quanta run and quanta serve; the simulator has no idle loop).
void add_idle_option(CLI::App& command, RunConfig& config);
// --rate-profile (io/rate_profile.h), checked as it is parsed.
void add_rate_profile_option(CLI::App& command, std::string& profile);
// --workload-shift (io/workload.h, Workload::shifting), checked as it is parsed.
void add_workload_shift_option(CLI::App& command, std::string& shifts);
// --overrun-report-quanta and --watchdog-ms (runtime/quantum_watchdog.h).
void add_watchdog_options(CLI::App& command, RunConfig& config);
// --class-schedule (quanta run, sim and serve): LC/BE classes per worker.
void add_class_schedule_option(CLI::App& command, std::string& schedule);

// One config per (local, dispatch, preempt) combination, in the order given. Throws
// CLI::ValidationError naming the option for an unknown name.
std::vector<RunConfig> expand_runs(const RunOptions& options);

}  // namespace quanta
