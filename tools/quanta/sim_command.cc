#include "sim_command.h"

#include <cstdio>
#include <iostream>

#include "experiment/report.h"
#include "run_command.h"
#include "shared_checks.h"
#include "sim/engine.h"

namespace quanta {

nlohmann::json sim_to_json(const SimConfig& config, const SimResult& result, const Workload& workload) {
  nlohmann::json out = run_to_json(result.run, workload, "sim");
  const SimOverheads& o = config.overheads;
  out["sim"] = {{"events", result.sim.events},
                {"wall_s", result.sim.wall_s},
                {"requests_per_s",
                 result.sim.wall_s > 0 ? static_cast<double>(result.run.dispatch.generated) / result.sim.wall_s : 0.0},
                {"cpu_s", result.sim.cpu_s},
                {"requests_per_cpu_s",
                 result.sim.cpu_s > 0 ? static_cast<double>(result.run.dispatch.generated) / result.sim.cpu_s : 0.0},
                {"peak_in_system", result.sim.peak_in_system},
                {"jobs", config.jobs ? nlohmann::json(*config.jobs) : nlohmann::json(nullptr)},
                {"overheads",
                 {{"preempt_overhead_ns", o.preempt_overhead_ns},
                  {"probe_overhead_pct", o.probe_overhead_pct},
                  {"dispatch_ns", o.dispatch_ns},
                  {"quantum_jitter_ns", o.quantum_jitter_ns},
                  {"request_overhead_ns", o.request_overhead_ns},
                  {"flag_notification_ns", o.flag_notification_ns},
                  {"signal_latency_ns", o.signal_latency_ns},
                  {"signal_cpu_ns", o.signal_cpu_ns},
                  {"monitor_poll_ns", o.monitor_poll_ns},
                  {"requeue_ns", o.requeue_ns}}}};
  return out;
}

int sim_command(const SimOptions& options) {
  const std::vector<SimConfig> configs = expand_sim_runs(options);
  const Workload workload = with_shift(Workload::parse(options.run.base.workload), options.run.base.workload_shift);
  const std::string& format = options.run.format;

  if (!options.max_load.objective.empty()) {
    std::vector<RunConfig> runs;
    for (const SimConfig& c : configs) runs.push_back(c.run);
    // Each search point is a simulation with the same size and overheads.
    return max_load_command(runs, options.max_load, format, [&](const RunConfig& run) {
      SimConfig config = configs.front();
      config.run = run;
      return sim_to_json(config, simulate(config, workload), workload);
    });
  }

  std::vector<nlohmann::json> reports;
  for (const SimConfig& config : configs) {
    reports.push_back(sim_to_json(config, simulate(config, workload), workload));
  }
  if (format == "json") {
    const nlohmann::json out = reports.size() == 1 ? reports.front() : nlohmann::json{{"runs", reports}};
    std::cout << out.dump(2) << '\n';
  } else {
    std::cout << runs_to_text(reports);
    for (const nlohmann::json& r : reports) {
      std::printf("  sim: %llu events, %.3f s wall (%.3g requests/s), %.3f s CPU (%.3g requests/s)\n",
                  static_cast<unsigned long long>(r["sim"]["events"].get<uint64_t>()), r["sim"]["wall_s"].get<double>(),
                  r["sim"]["requests_per_s"].get<double>(), r["sim"]["cpu_s"].get<double>(),
                  r["sim"]["requests_per_cpu_s"].get<double>());
    }
  }
  return strict_status(options.run, reports);
}

}  // namespace quanta
