// The options of `quanta load`, the open-loop network client: registered on a CLI11
// subcommand and checked there, so a bad value exits 2 naming the option.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace quanta {

struct LoadOptions {
  std::string target;                 // udp://HOST:PORT or tcp://HOST:PORT
  unsigned connections = 1;           // TCP
  std::optional<double> rate_rps;
  double load = 0.5;                  // fraction of one worker's capacity, when no rate
  double duration_s = 5;
  double warmup_frac = 0.1;
  uint64_t seed = 1;
  std::string rate_profile = "constant"; // --rate-profile: how the rate moves over the run
  std::string workload_shift;            // --workload-shift: service times that change mid-run
  std::string workload = "extreme-bimodal";
  bool workload_given = false;
  std::string app_path;               // empty: the spin app
  std::string app_config;
  unsigned max_payload_bytes = 1024;
  std::string arrivals = "poisson";
  std::string arrivals_file;          // send times (and classes) from a trace; empty: drawn
  double timeout_ms = 1000;
  std::string format = "text";
  std::string latency_log;            // interval log file; empty: none
  std::string latency_log_format = "hdr";  // hdr (HdrHistogram's interval log) or csv
  int cpu = -1;                       // pin the client's thread; -1: the first CPU this process may use
  std::string wait = "spin";          // between sends: spin, or block in the kernel
  std::optional<bool> progress;       // unset: on when stderr is a terminal
};

void add_load_options(CLI::App& command, LoadOptions& options);

}  // namespace quanta
