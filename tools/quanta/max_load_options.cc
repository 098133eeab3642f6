#include "max_load_options.h"

#include <cstdio>
#include <iostream>

#include "experiment/report.h"
#include "io/workload.h"
#include "run_command.h"
#include "shared_checks.h"

namespace quanta {

void add_max_load_options(CLI::App& cmd, MaxLoadOptions& o) {
  auto* objective =
      cmd.add_option("--max-load", o.objective,
                     "Find the largest load meeting [untouched:]CLASS:METRIC<=X by bisection, e.g. "
                     "short:p99.9-slowdown<=50 (Concord's objective), all:p99-us<=50 (CLASS: short, long, "
                     "all/overall or a class key; METRIC: p50|p99|p99.9|mean|max then -slowdown or -us; "
                     "untouched: judges only the requests no host stall touched)")
          ->check([](const std::string& text) {
            try {
              parse_max_load_objective(text);
              return std::string();
            } catch (const std::invalid_argument& e) {
              return std::string(e.what());
            }
          });
  objective->excludes(cmd.get_option("--load"));
  objective->excludes(cmd.get_option("--rate-rps"));
  cmd.add_option("--max-load-steps", o.steps, "Runs the --max-load bisection makes (answer within 1/2^N)")
      ->capture_default_str()
      ->check(CLI::Range(1, 30));
}

int max_load_command(const std::vector<RunConfig>& configs, const MaxLoadOptions& options, const std::string& format,
                     const std::function<nlohmann::json(const RunConfig&)>& run_one) {
  const MaxLoadObjective objective = *options.parsed();
  MaxLoadSearch search;
  search.steps = options.steps;
  std::vector<nlohmann::json> searches;
  for (const RunConfig& base : configs) {
    auto at_load = [&](double load) {
      RunConfig config = base;
      config.load = load;
      config.rate_rps.reset();
      if (format == "text") std::fprintf(stderr, "quanta: load %.4f...\n", load);
      nlohmann::json run = run_one(config);
      objective_value(objective, run);  // an unknown class fails on the first run, not after the search
      return run;
    };
    std::string runtime;  // quanta or linux for real runs; the simulator has none
    auto at_load_noting_runtime = [&](double load) {
      nlohmann::json run = at_load(load);
      runtime = run["config"].value("runtime", runtime);
      return run;
    };
    nlohmann::json result = find_max_load(objective, at_load_noting_runtime, search);
    result["config"] = {{"local", base.local_policy}, {"dispatch", base.dispatch_policy}, {"preempt", base.preempt}};
    if (!runtime.empty()) result["config"]["runtime"] = runtime;
    searches.push_back(std::move(result));
  }
  if (format == "json") {
    const nlohmann::json out = searches.size() == 1 ? searches.front() : nlohmann::json{{"searches", searches}};
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  for (const nlohmann::json& s : searches) {
    const nlohmann::json& c = s["config"];
    const std::string label = c.value("runtime", "") == "linux" ? std::string("linux kernel threads")
                                                      : c["local"].get<std::string>() + "/" +
                                                            c["dispatch"].get<std::string>() + "/" +
                                                            c["preempt"].get<std::string>();
    std::printf("%s  objective %s\n", label.c_str(), s["objective"].get<std::string>().c_str());
    std::printf("  %10s %14s %14s  %s\n", "load", "rate rps", "value", "met");
    for (const auto& p : s["points"]) {
      std::printf("  %10.4f %14.4g %14.4g  %s\n", p["load"].get<double>(), p["rate_rps"].get<double>(),
                  p["value"].get<double>(), p["met"].get<bool>() ? "yes" : "no");
    }
    std::printf("  max load %.4f (+%.4f)  max rate %.4g rps\n", s["max_load"].get<double>(),
                s["resolution"].get<double>(), s["max_rate_rps"].get<double>());
  }
  return 0;
}

int run_max_load_command(const RunOptions& run_options, const MaxLoadOptions& options) {
  const AppChoice apps(run_options.base.app_path);
  const Workload workload = with_shift(
      apps.workload_after_setup(run_options.base.workload, run_options.workload_given, run_options.base.app_config),
      run_options.base.workload_shift);
  // An app that declares no service times has its mean measured once, not at every point.
  std::vector<RunConfig> configs = expand_runs(run_options);
  measure_mean_service_once(configs, workload, apps, run_options);  // --max-load excludes --rate-rps
  return max_load_command(configs, options, run_options.format,
                          [&](const RunConfig& config) { return run_once(run_options, config, workload, apps); });
}

}  // namespace quanta
