#include "run_command.h"

#include <cstdio>
#include <iostream>

#include "experiment/report.h"
#include "linux_runtime/kernel_thread_report.h"
#include "linux_runtime/thread_pool_run.h"
#include "runtime/in_process_run.h"
#include "spin_app.h"

namespace quanta {

nlohmann::json run_once(const RunOptions& options, const RunConfig& config, const Workload& workload) {
  if (options.runtime == "linux") {
    if (options.format == "text") {
      std::fprintf(stderr, "quanta: running kernel threads (sched-%s) for %g s...\n",
                   linux_policy_name(options.kernel_threads.policy), config.duration_s);
    }
    // Clock probes: the pool's handler runs in short accounting slices they end.
    KernelThreadTotals kernel;
    const RunResult result = run_on_kernel_threads(config, workload, *quanta_spin_app(), options.kernel_threads, &kernel);
    nlohmann::json report = run_to_json(result, workload, "run");
    add_kernel_thread_fields(report, options.kernel_threads, kernel);
    return report;
  }
  if (options.format == "text") {
    std::fprintf(stderr, "quanta: running %s/%s/%s for %g s...\n", config.local_policy.c_str(),
                 config.dispatch_policy.c_str(), config.preempt.c_str(), config.duration_s);
  }
  const RunResult result = run_in_process(config, workload, *quanta_spin_app_for(config.preempt.c_str()));
  nlohmann::json report = run_to_json(result, workload, "run");
  report["config"]["runtime"] = "quanta";
  return report;
}

int run_command(const RunOptions& options) {
  const std::vector<RunConfig> configs = expand_runs(options);
  const Workload workload = Workload::parse(options.base.workload);
  std::vector<nlohmann::json> reports;
  for (const RunConfig& config : configs) reports.push_back(run_once(options, config, workload));
  if (options.format == "json") {
    // One run: one object. Several (comma lists): {"runs": [...]}, same objects inside.
    const nlohmann::json out = reports.size() == 1 ? reports.front() : nlohmann::json{{"runs", reports}};
    std::cout << out.dump(2) << '\n';
  } else {
    std::cout << runs_to_text(reports);
  }
  return 0;
}

}  // namespace quanta
