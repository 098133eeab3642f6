// `quanta run --runtime linux` and the options of the kernel-thread baseline. They are
// registered on the run command (not on sim: there is no kernel to simulate) and checked
// against the quanta-only options once the command line is parsed.
#pragma once

#include <CLI/CLI.hpp>

namespace quanta {

struct RunOptions;

// Adds --runtime, --linux-policy, --threads-per-core, --deadline-runtime-us and
// --deadline-period-us. After parsing, a usage error (exit 2) names the option when
// linux options come without --runtime linux, or quanta-only options (policies,
// quantum, rings, --max-load) come with it: rejected rather than silently ignored.
void add_linux_runtime_options(CLI::App& command, RunOptions& options);

}  // namespace quanta
