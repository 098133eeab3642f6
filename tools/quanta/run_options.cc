#include "run_options.h"

#include <algorithm>
#include <cstdlib>

#include "finite_number.h"
#include "shared_checks.h"
#include "io/rate_profile.h"
#include "io/workload.h"
#include "linux_options.h"
#include "policy/adaptive_quantum.h"
#include "policy/central_policy.h"
#include "policy/classed_policy.h"
#include "policy/dispatch_policy.h"
#include "policy/local_policy.h"
#include "preempt/mechanism.h"
#include "runtime/cpu_layout.h"

namespace quanta {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Splits "a,b" and checks each name against `allowed`.
std::vector<std::string> name_list(const std::string& option, const std::string& text,
                                   const std::vector<std::string>& allowed) {
  std::vector<std::string> names;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(',', start);
    const std::string name = text.substr(start, end - start);
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      throw CLI::ValidationError(option, "unknown value '" + name + "' (expected one of: " + joined(allowed) + ")");
    }
    names.push_back(name);
    if (end == std::string::npos) return names;
    start = end + 1;
  }
}

// Splits the --dispatch list and checks each name (jbsq:K takes any K from 1 to 1024).
std::vector<std::string> dispatch_names(const std::string& text) {
  std::vector<std::string> names;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(',', start);
    const std::string name = text.substr(start, end - start);
    DispatchSpec spec;
    try {
      spec = parse_dispatch_spec(name);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--dispatch", e.what());
    }
    names.push_back(name);
    if (end == std::string::npos) return names;
    start = end + 1;
  }
}

}  // namespace

void add_runtime_resource_options(CLI::App& cmd, RunConfig& c) {
  cmd.add_option("--task-slots", c.task_slots, "Requests a worker admits at once (one stack each)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 65536u));
  cmd.add_option("--stack-kib", c.stack_kib, "Stack size of each task in KiB")->capture_default_str()->check(CLI::Range(16u, 65536u));
  cmd.add_option("--ring-capacity", c.ring_capacity, "Requests each worker's dispatch ring holds")
      ->capture_default_str()
      ->check(CLI::Range(2u, 1u << 24));
  // The simulator takes it too: it decides which injected stalls (quanta sim --stalls) are seen.
  cmd.add_option("--stall-threshold-us", c.stall_threshold_us,
                 "A gap this long in a runtime thread's loop that its own work does not explain is counted as a "
                 "host stall of its CPU (reported per thread; a run whose thread lost over 1% warns)")
      ->capture_default_str()
      ->check(finite_number())
      ->check(CLI::Range(1.0, 1e6));
}

void add_idle_option(CLI::App& cmd, RunConfig& c) {
  cmd.add_option_function<std::string>(
         "--idle", [&c](const std::string& v) { parse_idle_mode(v, c.idle); },
         "What the runtime's threads do when idle: spin (default; a request is seen within nanoseconds), yield "
         "(after 20 us of spinning, sched_yield: the CPU goes to any other runnable thread, e.g. a load generator "
         "sharing the machine) or block (after 20 us of spinning, sleep in the kernel until work comes: an idle "
         "server uses no CPU, a request after a quiet spell pays a wake-up)")
      ->check(CLI::IsMember({"spin", "yield", "block"}))
      ->default_str("spin");
  cmd.add_option("--idle-spin-us", c.idle_spin_us,
                 "With --idle yield or block: how long an idle thread spins before it yields or sleeps (0: at once)")
      ->capture_default_str()
      ->check(finite_number())
      ->check(CLI::Range(0.0, 1e6));
}

void add_rate_profile_option(CLI::App& cmd, std::string& profile) {
  cmd.add_option_function<std::string>(
         "--rate-profile",
         [&profile](const std::string& v) {
           try {
             RateProfile::parse(v);
           } catch (const std::invalid_argument& e) {
             throw CLI::ValidationError("--rate-profile", e.what());
           }
           profile = v;
         },
         "How the offered rate moves over the run, as multiples of --load or --rate-rps: constant, steps:M@T,... "
         "(multiplier M from T s on, the first at 0) or bursts:PEAK:EVERY_S:FOR_S (PEAK times the rate for FOR_S at "
         "the start of every EVERY_S); arrivals stay Poisson at the rate of the moment")
      ->default_str("constant");
}

void add_class_schedule_option(CLI::App& cmd, std::string& schedule) {
  cmd.add_option_function<std::string>(
         "--class-schedule",
         [&schedule](const std::string& v) {
           try {
             parse_class_schedule(v, 1000.0);
           } catch (const std::invalid_argument& e) {
             throw CLI::ValidationError("--class-schedule", e.what());
           }
           schedule = v;
         },
         "Latency-critical and best-effort classes on each worker, by class index: lc or be, then optionally "
         ":RUNTIME/PERIOD (us; Microquanta's bandwidth: the class gets RUNTIME of every PERIOD even while "
         "others wait, and past it runs only on an idle CPU), :cap (not even then) and :pN (priority). E.g. "
         "lc,be:30/100. LC runs before BE without a budget; two-level dispatch only");
}

void add_workload_shift_option(CLI::App& cmd, std::string& shifts) {
  cmd.add_option("--workload-shift", shifts,
                 "Service times that change mid-run: SPEC@T_S,... (from T_S seconds on, service times from SPEC, a "
                 "--workload name or spec; times above 0, increasing). The rate stays --load's over --workload's mean "
                 "(pair with --rate-profile steps to hold the load); classes are the union of the workloads'")
      ->check(workload_shift_error);
}

void add_watchdog_options(CLI::App& cmd, RunConfig& c) {
  cmd.add_option("--overrun-report-quanta", c.overrun_report_quanta,
                 "Report a quantum that has gone on this many quanta without reaching a preemption point: worker, "
                 "request, time so far and where its task was (code without probes, or the host took the CPU); "
                 "0: never. Only where quanta end (not with --preempt none or --local fcfs)")
      ->capture_default_str()
      ->check(finite_number())
      ->check(CLI::Range(0.0, 1e9));
  cmd.add_option("--watchdog-ms", c.watchdog_ms,
                 "End the run, with a message saying where and the counts so far (exit 1), when one quantum has "
                 "gone on this long: a handler stuck in a loop without probes would otherwise hang it; 0: never")
      ->capture_default_str()
      ->check(finite_number())
      ->check(CLI::Range(0.0, 1e9));
}

void add_run_options(CLI::App& cmd, RunOptions& o, bool simulated) {
  RunConfig& c = o.base;
  auto* workload = cmd.add_option("--workload", c.workload,
                 "Service times: extreme-bimodal, high-bimodal, exp1, fixed1, tpcc, or a spec fixed:X, exp:MEAN, "
                 "bimodal:P:A:B, lognormal:MEAN:SIGMA (us)")
      ->capture_default_str()
      ->check(workload_spec_error);
  auto* load = cmd.add_option("--load", c.load, "Offered load as a fraction of the workers' capacity")
                   ->capture_default_str()
                   ->check(finite_number())
                   ->check(positive_number());
  auto* rate = cmd.add_option("--rate-rps", c.rate_rps, "Offered rate in requests per second (instead of --load)")
                   ->check(finite_number())
                   ->check(positive_number());
  load->excludes(rate);
  rate->excludes(load);
  add_rate_profile_option(cmd, c.rate_profile);
  add_workload_shift_option(cmd, c.workload_shift);
  cmd.add_option("--workers", c.workers,
                 "Worker cores (default: CPUs - 1, here " + std::to_string(max_workers()) + ")")
      ->check(CLI::Range(1u, 4096u));
  add_class_schedule_option(cmd, c.class_schedule);
  cmd.add_option("--interval-s", c.interval_s,
                 "Also report every request's sojourn by the interval of this length it finished in (completions, "
                 "p50, p99, p99.9 per interval under \"intervals\" in the JSON), to see a run change over time; 0: no")
      ->capture_default_str()
      ->check(finite_number())
      ->check(CLI::Range(0.0, 1e9));
  // LibPreemptible's adaptive controller in place of a number (policy/adaptive_quantum.h).
  cmd.add_option_function<std::string>(
         "--quantum-us",
         [&c](const std::string& v) {
           if (!is_adaptive_quantum_spec(v)) {
             c.quantum_us = std::stod(v);  // checked by the validators below
             c.adaptive_quantum.reset();
             return;
           }
           try {
             c.adaptive_quantum = parse_adaptive_quantum(v);
           } catch (const std::invalid_argument& e) {
             throw CLI::ValidationError("--quantum-us", e.what());
           }
           c.quantum_us = c.adaptive_quantum->max_us;  // it starts relaxed, as at low load
         },
         "Quantum in microseconds, or adaptive:MIN:MAX[:KEY=V,...]: LibPreemptible's controller moves it "
         "between MIN and MAX every period_s (0.1) by the load (high 0.9, low 0.1), the queue per worker "
         "(queue 8) and the tail index of the period's latencies (alpha 2); steps k1, k2 (a quarter of MAX-MIN "
         "down) and k3 (an eighth up); the decisions are in the JSON (docs/sim.md, docs/runtime.md)")
      ->default_str("2")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (is_adaptive_quantum_spec(text)) return {};
            // As any number option: finite first, then above 0.
            std::string copy = text;
            const std::string finite = finite_number()(copy);
            return finite.empty() ? positive_number()(copy) : finite;
          },
          "Q|adaptive:MIN:MAX"));
  cmd.add_option("--local", o.local_list, "Local policy per worker: ps, fcfs, las (comma list: run each)")
      ->capture_default_str();
  cmd.add_option("--dispatch", o.dispatch_list,
                 "Dispatch policy: jsq-msq, jsq, random, po2 (a worker per request; it keeps the request), central "
                 "(one queue at the dispatcher; an idle worker gets its head for a quantum), jbsq:K (central queue plus "
                 "up to K per worker, Concord), steal (a queue per worker, random placement, idle workers take from the "
                 "longest) (comma list: run each)")
      ->capture_default_str();
  cmd.add_option("--preempt", o.preempt_list,
                 "Preemption mechanism: clock (cycle-counter probes), flag (probes read a cache line the dispatcher "
                 "writes), signal (the dispatcher signals the worker; costs ~10 us a signal here, use quanta >= 50 us), "
                 "hybrid (clock probes + a signal backstop), none (comma list: run each)")
      ->capture_default_str();
  cmd.add_option("--backstop-us", c.backstop_us,
                 "hybrid: signal a task still running this long into its quantum (code without probes)")
      ->capture_default_str()
      ->check(finite_number())
      ->check(positive_number());
  cmd.add_option("--duration-s", c.duration_s, "Seconds of arrivals")
      ->capture_default_str()
      ->check(finite_number())
      ->check(positive_number())
      ->check(at_most(1e9, "arrival times are whole ns in 64 bits"));
  cmd.add_option("--warmup-frac", c.warmup_frac, "Fraction of the run left out of the statistics")
      ->capture_default_str()
      ->check(finite_number())
      ->check(CLI::Range(0.0, 0.99));
  cmd.add_option("--seed", c.seed, "Seed of the arrival schedule and of random policies")
      ->capture_default_str()
      ->check(seed_error);
  add_runtime_resource_options(cmd, c);
  cmd.add_option("--on-full", c.on_full, "When a worker's ring is full: wait (the dispatcher stalls) or drop")
      ->capture_default_str()
      ->check(CLI::IsMember({"wait", "drop"}));
  cmd.add_option("--format", o.format, "Output: text (a table) or json")->capture_default_str()->check(CLI::IsMember({"text", "json"}));
  cmd.add_flag("--strict", o.strict,
               "Exit with status 3 when a run's figures come with warnings (a late or stalled dispatcher, latencies "
               "beyond the histograms, more threads than CPUs, ...; listed under the table and in the JSON)");
  cmd.add_flag("--dispatcher-works", c.dispatcher_works,
               "With central or jbsq:K and clock, hybrid or flag (flag: the dispatcher runs the handler's clock twin): when every worker is full, the dispatcher runs an arriving "
               "request itself, a quantum at a time between its other duties, until it finishes");
  if (!simulated) {
    cmd.add_option("--app", c.app_path,
                   "The app to serve: a shared object exporting QUANTA_APP_EXPORT(app) (quanta/quanta.h), or a comma "
                   "list of builds of it with different probes (a-clock.so,a-flag.so: each --preempt runs the build "
                   "it needs). Default: the built-in spin app, which spins each request's service time")
        ->check(app_path_error);
    cmd.add_option("--app-config", c.app_config, "A string handed to the app's setup()");
    cmd.add_option("--max-payload-bytes", c.max_payload_bytes, "Largest request payload the app's make_request builds")
        ->capture_default_str()
        ->check(CLI::Range(8u, 64u << 20));
    cmd.add_option("--max-response-bytes", c.max_response_bytes, "Response buffer of each request")
        ->capture_default_str()
        ->check(CLI::Range(0u, 64u << 20));
    cmd.add_flag("--oversubscribe", c.oversubscribe,
                 "Allow more --workers than free CPUs (threads then share CPUs): for testing multi-worker behaviour on a "
                 "small machine; latencies measured this way mean nothing");
    add_idle_option(cmd, c);
    add_watchdog_options(cmd, c);
    add_linux_runtime_options(cmd, o);
    // A final callback: add_linux_runtime_options owns the parse-complete one.
    cmd.final_callback([&o, workload] {
      o.workload_given = workload->count() > 0;
      if (o.base.workers > max_workers() && !o.base.oversubscribe) {
        throw CLI::ValidationError("--workers", "must be 1.." + std::to_string(max_workers()) +
                                                    " here: each worker needs a CPU of its own and one CPU is the "
                                                    "dispatcher's (" + std::to_string(allowed_cpus().size()) +
                                                    " CPUs); --oversubscribe allows more for tests");
      }
    });
  }
}

std::vector<RunConfig> expand_runs(const RunOptions& o) {
  std::vector<RunConfig> runs;
  for (const auto& local : name_list("--local", o.local_list, local_policy_names())) {
    for (const auto& dispatch : dispatch_names(o.dispatch_list)) {
      for (const auto& preempt : name_list("--preempt", o.preempt_list, preempt_mechanism_names())) {
        RunConfig config = o.base;
        config.local_policy = local;
        config.dispatch_policy = dispatch;
        config.preempt = preempt;
        if (!config.class_schedule.empty() && parse_dispatch_spec(dispatch).kind != DispatchSpec::Kind::kPerRequest) {
          throw CLI::ValidationError("--class-schedule", "needs a two-level --dispatch (jsq-msq, jsq, random, po2): "
                                                         "each worker schedules its own classes, not " + dispatch);
        }
        if (config.dispatcher_works) {
          const DispatchSpec spec = parse_dispatch_spec(dispatch);
          if (spec.kind != DispatchSpec::Kind::kCentral && spec.kind != DispatchSpec::Kind::kJbsq) {
            throw CLI::ValidationError("--dispatcher-works", "needs --dispatch central or jbsq:K, not " + dispatch);
          }
          // flag: the dispatcher runs the handler's clock twin; whether the app has one is
          // checked when the runtime starts.
          if (preempt != "clock" && preempt != "hybrid" && preempt != "flag") {
            throw CLI::ValidationError("--dispatcher-works", "needs --preempt clock, hybrid or flag (the dispatcher "
                                                             "stops its own request with clock probes), not " + preempt);
          }
        }
        runs.push_back(config);
      }
    }
  }
  return runs;
}

}  // namespace quanta
