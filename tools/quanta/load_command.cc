#include "load_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "app_choice.h"
#include "shared_checks.h"
#include "load/latency_log.h"
#include "load/load_report.h"
#include "load/load_run.h"
#include "load/load_stats.h"
#include "load/send_schedule.h"
#include "load/trace_schedule.h"
#include "runtime/cpu_layout.h"

namespace quanta {

int load_command(const LoadOptions& o) {
  const Target target = parse_target(o.target);
  const AppChoice apps(o.app_path);
  // The client only builds requests: any build of the app has the same make_request.
  const quanta_app& app = apps.for_mechanism("none");
  if (app.protocol != nullptr && target.protocol == Target::Protocol::kUdp &&
      app.protocol->datagram != QUANTA_DATAGRAM_MEMCACHED) {
    throw std::invalid_argument("--target: the app '" + apps.name() + "' speaks its own protocol ('" +
                                (app.protocol->name ? app.protocol->name : "unnamed") +
                                "') with plain datagrams, whose replies do not say which request they answer: "
                                "use a tcp:// target");
  }
  if (app.protocol != nullptr && app.protocol->frame_reply == nullptr) {
    throw std::invalid_argument("--app: the app '" + apps.name() +
                                "' has a protocol without frame_reply: the client cannot read its replies");
  }
  // Set up first: the app may take its classes' shares from its configuration.
  if (app.setup != nullptr && app.setup(o.app_config.c_str()) != 0) {
    throw std::runtime_error("the app '" + apps.name() + "' failed its setup with --app-config '" + o.app_config + "'");
  }
  const Workload workload = with_shift(apps.workload(o.workload, o.workload_given), o.workload_shift);

  double rate_rps = 0, load = 0;
  std::vector<Arrival> schedule;
  double duration_s = o.duration_s;
  if (!o.arrivals_file.empty() && o.rate_profile != "constant") {
    throw std::invalid_argument("--rate-profile: a trace's send times (--arrivals-file) are its own");
  }
  if (!o.arrivals_file.empty()) {
    schedule = load_trace_schedule(o.arrivals_file, workload, o.seed);
    // The run lasts until the last send; a trace of sends all at 0 still gets a duration
    // that keeps rates finite.
    duration_s = std::max(static_cast<double>(schedule.back().arrival_ns) / 1e9, 1e-6);
    rate_rps = static_cast<double>(schedule.size()) / duration_s;
  } else if (o.rate_rps) {
    rate_rps = *o.rate_rps;
  } else {
    if (!workload.service_known()) {
      throw std::invalid_argument("--load: the app '" + apps.name() +
                                  "' declares no service times, so a load cannot be turned into a rate; give "
                                  "--rate-rps");
    }
    load = o.load;
    rate_rps = o.load * 1e6 / workload.mean_us();
  }
  if (o.arrivals_file.empty()) {
    const RateProfile profile = RateProfile::parse(o.rate_profile);
    schedule = make_send_schedule(workload, {rate_rps, duration_s, o.seed, &profile}, parse_arrival_process(o.arrivals));
  }

  LoadRunConfig run;
  run.target = target;
  run.connections = o.connections;
  run.timeout_ms = o.timeout_ms;
  const std::vector<int> cpus = allowed_cpus();
  run.cpu = o.cpu >= 0 ? o.cpu : (cpus.empty() ? -1 : cpus.front());
  run.block_between_sends = o.wait == "block";
  run.progress = o.progress.value_or(isatty(STDERR_FILENO) != 0 && duration_s > 3);
  run.duration_s = duration_s;
  run.seed = o.seed;
  run.max_payload_bytes = o.max_payload_bytes;
  run.app = &app;
  run.app_classes = workload.app_defined();
  if (o.format == "text") {
    std::fprintf(stderr, "quanta: sending %zu requests to %s over %g s...\n", schedule.size(), o.target.c_str(),
                 duration_s);
  }
  const LoadRunOutcome outcome = run_load(run, schedule);
  if (app.teardown != nullptr) app.teardown();

  const auto warmup_ns = static_cast<uint64_t>(o.warmup_frac * duration_s * 1e9);
  const LoadStats stats = compute_load_stats(outcome, schedule, workload.classes().size(), warmup_ns,
                                             workload.service_known() && !workload.app_defined());
  if (!o.latency_log.empty()) {
    std::ofstream log(o.latency_log);
    log << (o.latency_log_format == "csv" ? latency_interval_csv(outcome, schedule)
                                          : latency_interval_hdr_log(outcome, schedule));
    if (!log) throw std::runtime_error("cannot write the latency log '" + o.latency_log + "'");
  }
  LoadReportConfig report;
  report.target = o.target;
  report.connections = target.protocol == Target::Protocol::kTcp ? o.connections : 1;
  report.arrivals = o.arrivals_file.empty() ? o.arrivals : "file:" + o.arrivals_file;
  report.rate_profile = o.rate_profile;
  report.rate_rps = rate_rps;
  report.load = load;
  report.mean_service_us = workload.mean_us();
  report.duration_s = duration_s;
  report.warmup_frac = o.warmup_frac;
  report.seed = o.seed;
  report.timeout_ms = o.timeout_ms;
  report.cpu = run.cpu;
  report.wait = o.wait;
  report.app_name = apps.name();
  report.app_path = o.app_path;
  report.app_config = o.app_config;
  report.latency_log = o.latency_log;
  report.latency_log_format = o.latency_log.empty() ? "" : o.latency_log_format;
  const nlohmann::json json = load_to_json(report, workload, outcome, stats);
  if (o.format == "json") {
    std::cout << json.dump(2) << '\n';
  } else {
    std::cout << load_to_text(json);
  }
  return 0;
}

}  // namespace quanta
