// The kernel-thread baseline: the same schedule, handler and statistics as run_in_process,
// but each request is served by one of a pool of kernel threads (threads_per_core per
// worker CPU, not pinned one to one) that take requests from one shared queue and run the
// handler to completion. The Linux scheduler's time slicing is the only preemption.
#pragma once

#include <cstdint>

#include "experiment/run_result.h"
#include "io/workload.h"
#include "linux_runtime/kernel_thread_options.h"
#include "linux_runtime/kernel_thread_server.h"
#include "quanta/quanta.h"

namespace quanta {

// The kernel-thread server's configuration from a run's (or a server's) options: workers,
// stack size, stall threshold and the dispatcher's --idle.
KernelThreadServerConfig kernel_thread_server_config_of(const RunConfig& config, const KernelThreadOptions& options,
                                                        std::size_t class_count);

// Throws std::invalid_argument for a configuration that cannot run here (names the
// option), std::runtime_error if the app's setup fails, a thread cannot start, or the
// scheduling policy is not permitted (the message has the errno text).
RunResult run_on_kernel_threads(const RunConfig& config, const Workload& workload, const quanta_app& app,
                                const KernelThreadOptions& options, KernelThreadTotals* totals = nullptr);

}  // namespace quanta
