#include "sim_options.h"

#include "finite_number.h"

#include "policy/central_policy.h"
#include "runtime/cpu_layout.h"
#include "sim/calibration.h"

namespace quanta {

void add_sim_options(CLI::App& cmd, SimOptions& o) {
  add_run_options(cmd, o.run, /*simulated=*/true);
  cmd.get_option("--workers")
      ->description("Simulated workers, any number from 1 (default: as quanta run, CPUs - 1, here " +
                    std::to_string(max_workers()) + ")");
  cmd.get_option("--dispatch")
      ->description("Dispatch policy: jsq-msq, jsq, random, po2, central (one queue, centralized PS/FCFS), jbsq:K, "
                    "steal (comma list: run each)");
  cmd.get_option("--preempt")
      ->description("clock (probes end the quantum on time, + --quantum-jitter-ns), flag (the monitor notices the end "
                    "at its next poll, + --flag-notification-ns), signal (the monitor's signal lands "
                    "--signal-latency-ns later and costs the worker --signal-cpu-ns), hybrid (clock, and a signal at "
                    "--backstop-us), none (comma list: run each)");
  cmd.get_option("--stack-kib")
      ->description("Not modelled: the simulator has no task stacks (given, it is an error)")
      ->each([&o](const std::string&) { o.stack_kib_given = true; });
  cmd.get_option("--task-slots")
      ->description("Requests a worker admits at once; with --dispatch central, the shared queue admits slots x workers");
  auto* jobs = cmd.add_option("--jobs", o.jobs, "Simulate this many arrivals (instead of --duration-s)")
                   ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  jobs->excludes(cmd.get_option("--duration-s"));
  cmd.get_option("--duration-s")->excludes(jobs);
  cmd.add_option("--calibration", o.calibration,
                 "JSON of measured overheads (quanta calibrate; the keys in docs/sim.md); the options below override it");
  cmd.add_option("--preempt-overhead-ns", o.preempt_overhead_ns, "Worker time lost at each preemption (default 0)")
      ->check(finite_number())
      ->check(non_negative_number());
  cmd.add_option("--probe-overhead-pct", o.probe_overhead_pct,
                 "Instrumented handlers run this much slower, in percent (default 0)")
      ->check(finite_number())
      ->check(non_negative_number());
  cmd.add_option("--dispatch-ns", o.dispatch_ns, "Dispatcher time per request; it serves requests one by one (default 0)")
      ->check(finite_number())
      ->check(non_negative_number());
  cmd.add_option("--quantum-jitter-ns", o.quantum_jitter_ns,
                 "Sigma of a one-sided normal added to every quantum: imprecise preemption (default 0)")
      ->check(finite_number())
      ->check(non_negative_number());
  cmd.add_option("--request-overhead-ns", o.request_overhead_ns,
                 "Worker time per request outside the handler: admit, start the task, finish (default 0)")
      ->check(finite_number())
      ->check(non_negative_number());
  cmd.add_option("--flag-notification-ns", o.flag_notification_ns,
                 "flag: time from the monitor's write of a worker's flag to its task stopping at a probe (default 0)")
      ->check(finite_number())
      ->check(non_negative_number());
  cmd.add_option("--signal-latency-ns", o.signal_latency_ns,
                 "signal, hybrid: time from the monitor's signal to the task being switched out (default 0)")
      ->check(finite_number())
      ->check(non_negative_number());
  cmd.add_option("--signal-cpu-ns", o.signal_cpu_ns,
                 "signal, hybrid: worker CPU lost per signal, kernel entry and exit and the handler (default 0)")
      ->check(finite_number())
      ->check(non_negative_number());
  cmd.add_option("--monitor-poll-ns", o.monitor_poll_ns,
                 "flag, signal, hybrid: an idle dispatcher's loop period; the monitor notices a quantum's end at its "
                 "next poll (default 0: at once)")
      ->check(finite_number())
      ->check(non_negative_number());
  cmd.add_option("--requeue-ns", o.requeue_ns,
                 "central, jbsq:K, steal: dispatcher time per preempted quantum put back in its queue; under central "
                 "and steal the worker waits for it (default 0)")
      ->check(finite_number())
      ->check(non_negative_number());
  cmd.add_option("--stalls", o.stalls,
                 "Replay a machine's host stalls (the JSON of quanta-bench-stalls --trace) on every simulated CPU");
  cmd.add_option("--stall-window", o.stall_window,
                 "With --stalls, which requests a stall touched: those whose life it or the drain after it (as long "
                 "again) overlaps (drain, the runtime's rule), those whose life it overlaps (lifetime), or those "
                 "served in the busy period it fell in (busy-period)")
      ->capture_default_str()
      ->check(CLI::IsMember({"drain", "lifetime", "busy-period"}));
  add_max_load_options(cmd, o.max_load);
}

std::vector<SimConfig> expand_sim_runs(const SimOptions& o) {
  if (o.stack_kib_given) {
    throw CLI::ValidationError("--stack-kib", "not modelled: the simulator has no task stacks (leave it out)");
  }
  const std::vector<RunConfig> base = expand_runs(o.run);

  SimOverheads overheads;
  if (!o.calibration.empty()) {
    try {
      overheads = load_calibration(o.calibration);
    } catch (const std::invalid_argument& e) {
      // A usage error (exit 2) like any other bad option; the message starts with the option.
      std::string why = e.what();
      const std::string prefix = "--calibration: ";
      if (why.starts_with(prefix)) why = why.substr(prefix.size());
      throw CLI::ValidationError("--calibration", why);
    }
  }
  if (o.preempt_overhead_ns) overheads.preempt_overhead_ns = *o.preempt_overhead_ns;
  if (o.probe_overhead_pct) overheads.probe_overhead_pct = *o.probe_overhead_pct;
  if (o.dispatch_ns) overheads.dispatch_ns = *o.dispatch_ns;
  if (o.quantum_jitter_ns) overheads.quantum_jitter_ns = *o.quantum_jitter_ns;
  if (o.request_overhead_ns) overheads.request_overhead_ns = *o.request_overhead_ns;
  if (o.flag_notification_ns) overheads.flag_notification_ns = *o.flag_notification_ns;
  if (o.signal_latency_ns) overheads.signal_latency_ns = *o.signal_latency_ns;
  if (o.signal_cpu_ns) overheads.signal_cpu_ns = *o.signal_cpu_ns;
  if (o.monitor_poll_ns) overheads.monitor_poll_ns = *o.monitor_poll_ns;
  if (o.requeue_ns) overheads.requeue_ns = *o.requeue_ns;

  std::shared_ptr<const StallTrace> stalls;
  if (!o.stalls.empty()) {
    try {
      stalls = std::make_shared<const StallTrace>(load_stall_trace(o.stalls));
    } catch (const std::invalid_argument& e) {
      std::string why = e.what();
      const std::string prefix = "--stalls: ";
      if (why.starts_with(prefix)) why = why.substr(prefix.size());
      throw CLI::ValidationError("--stalls", why);
    }
  }

  std::vector<SimConfig> runs;
  for (const RunConfig& b : base) {
    SimConfig config;
    config.run = b;
    // The same default as `quanta run`, so a script can switch commands.
    if (config.run.workers == 0) config.run.workers = max_workers();
    config.jobs = o.jobs;
    config.overheads = overheads;
    config.stalls = stalls;
    config.stall_window = o.stall_window == "lifetime"      ? StallWindow::kLifetime
                          : o.stall_window == "busy-period" ? StallWindow::kBusyPeriod
                                                            : StallWindow::kDrain;
    runs.push_back(config);
  }
  return runs;
}

}  // namespace quanta
