// Measurements of this machine's costs that the simulator needs to predict it and that a
// user needs to choose a quantum: clock reads, quantum round trips, probes, flag
// notification, dispatch. Each runs for a fraction of a second and returns ns.
// `quanta calibrate` prints them as JSON; bench/ times the same code with Google Benchmark.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>


namespace quanta::calibrate {

struct Spread {
  double p50_ns = 0;
  double p99_ns = 0;
  double mean_ns = 0;
};

double tsc_read_ns();
// Resume + yield + time accounting, as a worker runs a quantum.
double quantum_round_trip_ns();
// Extra cost per loop iteration of a probe that does not fire, clock and flag kinds.
double clock_probe_ns();
double flag_probe_ns();
// Monitor writes a worker's flag on one CPU -> the task on another CPU has yielded.
Spread flag_notification(int samples);
// A monitor signals a task on another CPU -> the task has been switched out from inside
// the signal handler. And the CPU a worker loses per signal that does not switch (the
// kernel's delivery, the handler, sigreturn), measured as extra time for a fixed spin.
Spread signal_preemption(int samples);
double signal_cpu_cost_ns(int signals);

// How often an idle dispatcher's monitor looks at a worker's quantum: the period of the
// two-level dispatcher's loop with a flag monitor over one worker whose quantum is open
// and not yet over, and no arrivals. One thread, this CPU only.
double monitor_poll_ns(double seconds);

// The dispatcher's own cost per request (policy + ring push, 4 workers, a consumer that
// only drains), and a no-op request end to end through one real worker.
double dispatcher_only_ns_per_request(std::size_t requests);
double two_level_noop_ns_per_request(std::size_t requests);
// The same through the centralized dispatcher with JBSQ(depth) (depth 1: --dispatch
// central): every request goes to the worker and comes back over the return ring.
double central_noop_ns_per_request(std::size_t requests, uint32_t depth);
template <uint32_t Depth>
double central_noop_ns_per_request_at(std::size_t requests) {
  return central_noop_ns_per_request(requests, Depth);
}

}  // namespace quanta::calibrate
