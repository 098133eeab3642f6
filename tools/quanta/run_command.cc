#include "run_command.h"
#include "shared_checks.h"

#include <cstdio>
#include <iostream>

#include "experiment/in_process_run.h"
#include "experiment/report.h"
#include "linux_runtime/kernel_thread_report.h"
#include "linux_runtime/thread_pool_run.h"

namespace quanta {

nlohmann::json run_once(const RunOptions& options, const RunConfig& config, const Workload& workload,
                        const AppChoice& apps) {
  if (options.runtime == "linux") {
    if (options.format == "text") {
      const KernelThreadOptions& k = options.kernel_threads;
      std::fprintf(stderr, "quanta: running kernel threads (%s%s) for %g s...\n",
                   k.class_sched.empty() ? "sched-" : "per class: ",
                   k.class_sched.empty() ? linux_policy_name(k.policy) : k.class_sched.c_str(), config.duration_s);
    }
    // Clock probes: the pool's handler runs in short accounting slices they end.
    KernelThreadTotals kernel;
    const RunResult result =
        run_on_kernel_threads(config, workload, apps.for_mechanism("clock"), options.kernel_threads, &kernel);
    nlohmann::json report = run_to_json(result, workload, "run");
    add_kernel_thread_fields(report, options.kernel_threads, kernel);
    return report;
  }
  if (options.format == "text") {
    std::fprintf(stderr, "quanta: running %s/%s/%s for %g s...\n", config.local_policy.c_str(),
                 config.dispatch_policy.c_str(), config.preempt.c_str(), config.duration_s);
  }
  const RunResult result = run_in_process(config, workload, apps.for_mechanism(config.preempt));
  nlohmann::json report = run_to_json(result, workload, "run");
  report["config"]["runtime"] = "quanta";
  return report;
}

void measure_mean_service_once(std::vector<RunConfig>& configs, const Workload& workload, const AppChoice& apps,
                               const RunOptions& options) {
  if (workload.service_known() || configs.empty() || configs.front().rate_rps) return;
  const double mean_us = measure_mean_service_us(workload, apps.for_mechanism("none"), configs.front());
  if (options.format == "text") {
    std::fprintf(stderr, "quanta: the app '%s' declares no service times: its mean CPU time per request, measured "
                 "one request at a time, is %.3g us (--load converts with it)\n", apps.name().c_str(), mean_us);
  }
  for (RunConfig& c : configs) c.measured_mean_service_us = mean_us;
}

int run_command(const RunOptions& options) {
  std::vector<RunConfig> configs = expand_runs(options);
  const AppChoice apps(options.base.app_path);
  const Workload workload = with_shift(
      apps.workload_after_setup(options.base.workload, options.workload_given, options.base.app_config),
      options.base.workload_shift);
  measure_mean_service_once(configs, workload, apps, options);
  std::vector<nlohmann::json> reports;
  for (const RunConfig& config : configs) reports.push_back(run_once(options, config, workload, apps));
  if (options.format == "json") {
    // One run: one object. Several (comma lists): {"runs": [...]}, same objects inside.
    const nlohmann::json out = reports.size() == 1 ? reports.front() : nlohmann::json{{"runs", reports}};
    std::cout << out.dump(2) << '\n';
  } else {
    std::cout << runs_to_text(reports);
  }
  return strict_status(options, reports);
}

int strict_status(const RunOptions& options, const std::vector<nlohmann::json>& reports) {
  if (!options.strict || !any_warnings(reports)) return 0;
  std::fflush(stdout);
  std::fprintf(stderr, "quanta: --strict: the run's figures come with warnings (see above)\n");
  return 3;
}

}  // namespace quanta
