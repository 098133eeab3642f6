#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace quanta {

struct CalibrateOptions {
  std::string output;        // also write the JSON here (for quanta sim --calibration)
  int flag_samples = 2000;
};

void add_calibrate_options(CLI::App& command, CalibrateOptions& options);

// Measures this machine and prints the calibration JSON (docs/calibration.md).
int calibrate_command(const CalibrateOptions& options);

}  // namespace quanta
