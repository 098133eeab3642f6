// The kernel-thread baseline: the same schedule, handler and statistics as run_in_process,
// but each request is served by one of a pool of kernel threads (threads_per_core per
// worker CPU, not pinned one to one) that take requests from one shared queue and run the
// handler to completion. The Linux scheduler's time slicing is the only preemption.
#pragma once

#include <cstdint>

#include "experiment/run_result.h"
#include "io/workload.h"
#include "linux_runtime/kernel_thread_options.h"
#include "quanta/quanta.h"

namespace quanta {

// What only this runtime measures, reported under "runtime.kernel" in the JSON.
struct KernelThreadTotals {
  unsigned threads = 0;
  uint64_t involuntary_switches = 0;  // the kernel preempted a pool thread (getrusage)
  uint64_t voluntary_switches = 0;    // a pool thread slept (empty queue, lock)
  uint64_t handler_off_cpu_gaps = 0;  // handler slices in which the thread lost the CPU
  double handler_off_cpu_ms = 0;      // their total length
};

// Throws std::invalid_argument for a configuration that cannot run here (names the
// option), std::runtime_error if the app's setup fails, a thread cannot start, or the
// scheduling policy is not permitted (the message has the errno text).
RunResult run_on_kernel_threads(const RunConfig& config, const Workload& workload, const quanta_app& app,
                                const KernelThreadOptions& options, KernelThreadTotals* totals = nullptr);

}  // namespace quanta
