#include "calibrate_command.h"

#include <cpuid.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "calibrate/measurements.h"
#include "core/tsc.h"
#include "runtime/cpu_layout.h"

namespace quanta {
namespace {

// User interrupts (Intel UINTR): the CPU advertises them in CPUID.(EAX=7,ECX=0):EDX[5].
// Upstream Linux has no system calls for them (the patches were never merged), so even a
// CPU that has them cannot be used by a process here. Reported, never emulated.
nlohmann::json user_interrupt_support() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool leaf7 = __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0;
  const bool cpu_flag = leaf7 && (edx & (1u << 5)) != 0;
  return {{"cpu_flag", cpu_flag},
          {"kernel_support", false},
          {"usable", false},
          {"why", cpu_flag ? "the CPU has UINTR but this kernel offers no uintr system calls"
                           : "the CPU does not advertise UINTR (CPUID.7.0:EDX[5])"}};
}

}  // namespace

void add_calibrate_options(CLI::App& cmd, CalibrateOptions& o) {
  cmd.add_option("--output", o.output, "Also write the JSON to this file (for quanta sim --calibration)");
  cmd.add_option("--flag-samples", o.flag_samples, "Flag notifications to time")
      ->capture_default_str()
      ->check(CLI::Range(10, 1'000'000));
}

int calibrate_command(const CalibrateOptions& o) {
  using nlohmann::json;
  const std::size_t cpus = allowed_cpus().size();
  // What one thread measures on its own CPU; the rest needs a second CPU that spins while
  // the first one works: on one CPU each side would wait for the other's time slice, and
  // the rounds of those measurements would take minutes or for ever.
  std::fprintf(stderr, "quanta: calibrating (a few seconds; %s)...\n",
               cpus >= 2 ? "two CPUs spin" : "one CPU: only what one CPU can measure");
  json out{{"machine", {{"cpus", cpus}, {"tsc_ghz", tsc_per_ns()}}},
           {"tsc_read_ns", calibrate::tsc_read_ns()},
           {"quantum_round_trip_ns", calibrate::quantum_round_trip_ns()},
           {"probe_ns", {{"clock", calibrate::clock_probe_ns()}, {"flag", calibrate::flag_probe_ns()}}},
           {"monitor_poll_ns", calibrate::monitor_poll_ns(0.05)}};
  const char* two_cpu_keys[] = {"flag_notification_ns", "dispatch_ns_per_request", "signal_preemption_ns",
                                "signal_cpu_cost_ns", "requeue_ns"};
  if (cpus >= 2) {
    const calibrate::Spread flag = calibrate::flag_notification(o.flag_samples);
    const calibrate::Spread signal = calibrate::signal_preemption(200);
    out["flag_notification_ns"] = {{"p50", flag.p50_ns}, {"p99", flag.p99_ns}, {"mean", flag.mean_ns}};
    const double two_level_noop_ns = calibrate::two_level_noop_ns_per_request(1 << 20);
    const double central_noop_ns = calibrate::central_noop_ns_per_request(1 << 19, 1);
    out["dispatch_ns_per_request"] = {{"dispatcher_only", calibrate::dispatcher_only_ns_per_request(1 << 21)},
                                      {"two_level_noop", two_level_noop_ns},
                                      {"central_noop", central_noop_ns},
                                      {"jbsq2_noop", calibrate::central_noop_ns_per_request(1 << 19, 2)}};
    out["signal_preemption_ns"] = {{"p50", signal.p50_ns}, {"p99", signal.p99_ns}, {"mean", signal.mean_ns}};
    out["signal_cpu_cost_ns"] = calibrate::signal_cpu_cost_ns(500);
    // What one trip through the central dispatcher (the slot back, the next handed out)
    // adds to a worker's loop over keeping the task itself: the no-op request's time
    // through `central` over its time through the two-level worker. A preempted quantum
    // under central makes the same trip.
    out["requeue_ns"] = std::max(0.0, central_noop_ns - two_level_noop_ns);
  } else {
    json not_measured = json::object();
    for (const char* key : two_cpu_keys) {
      not_measured[key] = "needs two CPUs (a thread on each, one timing the other); this process may use one";
    }
    out["not_measured"] = not_measured;
    std::fprintf(stderr, "quanta: one CPU: not measured: flag_notification_ns, dispatch_ns_per_request, "
                         "signal_preemption_ns, signal_cpu_cost_ns, requeue_ns (each needs two CPUs)\n");
  }
  out["user_interrupts"] = user_interrupt_support();
  const std::string text = out.dump(2);
  std::cout << text << '\n';
  if (!o.output.empty()) {
    std::ofstream file(o.output);
    if (!(file << text << '\n')) {
      std::fprintf(stderr, "quanta: --output: cannot write '%s'\n", o.output.c_str());
      return 2;
    }
  }
  return 0;
}

}  // namespace quanta
