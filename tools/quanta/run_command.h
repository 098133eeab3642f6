#pragma once

#include "run_options.h"

namespace quanta {

// Runs every configuration the options name, on the same schedule, and prints them.
// Returns the process exit status.
int run_command(const RunOptions& options);

}  // namespace quanta
