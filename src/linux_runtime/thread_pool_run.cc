#include "linux_runtime/thread_pool_run.h"

#include <string>

#include "core/tsc.h"
#include "experiment/in_process_run.h"
#include "io/generator_source.h"
#include "io/schedule.h"
#include "linux_runtime/kernel_thread_report.h"

namespace quanta {

KernelThreadServerConfig kernel_thread_server_config_of(const RunConfig& config, const KernelThreadOptions& options,
                                                        std::size_t class_count) {
  KernelThreadServerConfig c;
  c.workers = config.workers;
  c.options = options;
  c.stack_kib = config.stack_kib;
  c.class_count = class_count;
  c.stall_threshold_us = config.stall_threshold_us;
  c.idle = config.idle;
  c.idle_spin_us = config.idle_spin_us;
  return c;
}

RunResult run_on_kernel_threads(const RunConfig& config, const Workload& workload, const quanta_app& app,
                                const KernelThreadOptions& options, KernelThreadTotals* totals_out) {
  RunResult result;
  result.config = config;
  describe_kernel_threads(result.config, options);
  // Checks --workers and --threads-per-core.
  KernelThreadServer server(kernel_thread_server_config_of(config, options, workload.classes().size()), app);
  const unsigned workers = server.workers();
  const std::vector<Arrival> schedule = plan_run(config, workload, app, workers, result);
  // The generator's record pool holds as many requests as the quanta runtime admits:
  // beyond that it waits, and the wait shows up as latency.
  GeneratorSource generator(schedule, workload, app, generator_options_of(config, workers));
  server.add_source(generator);
  server.start(config.app_config);
  // The schedule ends by itself: every request it made is finished before this returns.
  const KernelThreadResult r = server.finish();

  static_cast<RunCounters&>(result) = r;
  result.build_failures = generator.build_failures();
  result.elapsed_s = cycles_to_ns(r.last_finish_tsc - r.start_tsc) * 1e-9;
  if (totals_out != nullptr) *totals_out = r.kernel;
  return result;
}

}  // namespace quanta
