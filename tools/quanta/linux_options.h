// `--runtime linux` and the options of the kernel-thread baseline, on the commands that
// can run it (run and serve; not sim: there is no kernel to simulate). They are checked
// against the command's quanta-only options once the command line is parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "linux_runtime/kernel_thread_options.h"

namespace quanta {

struct RunOptions;
struct ServeOptions;

// Adds --runtime, --linux-policy, --threads-per-core, --deadline-runtime-us and
// --deadline-period-us. After parsing, a usage error (exit 2) names the option when
// linux options come without --runtime linux, or the command's quanta-only options
// (policies, quantum, rings, ...) come with it: rejected rather than silently ignored.
void add_linux_runtime_options(CLI::App& command, RunOptions& options);
// The same for quanta serve, whose quanta-only options also include --dispatcher-only and
// the watchdog's (there are no quanta to watch), and whose --preempt may stay clock (the
// default: it picks the app's clock-probe build, which the pool runs).
void add_linux_runtime_options(CLI::App& command, ServeOptions& options);

}  // namespace quanta
