// Reads the overheads the simulator charges from the JSON that `quanta calibrate` writes
// (or one written by hand). Keys, all optional numbers; the other measurements `quanta
// calibrate` writes and the keys "notes" and "source" are allowed and not read; any other
// key is refused (a misspelt key would silently leave an overhead at 0):
//   quantum_round_trip_ns    -> preempt_overhead_ns (what `quanta calibrate` measures)
//   yield_round_trip_ns      -> preempt_overhead_ns (wins over quantum_round_trip_ns)
//   preempt_overhead_ns      -> preempt_overhead_ns (wins over both)
//   probe_overhead_pct       -> probe_overhead_pct
//   dispatch_ns_per_request  -> dispatch_ns; a number, or an object whose "dispatcher_only"
//                               member is used (the form `quanta calibrate` writes; its
//                               "two_level_noop" is not used: see docs/sim.md)
//   quantum_jitter_ns        -> quantum_jitter_ns (sigma of the one-sided normal)
//   request_overhead_ns      -> request_overhead_ns (worker time per request outside the handler)
//   flag_notification_ns     -> flag_notification_ns; a number or a spread {"p50", ...} (its p50)
//   signal_preemption_ns     -> signal_latency_ns; a number or a spread (its p50)
//   signal_cpu_cost_ns       -> signal_cpu_ns
//   monitor_poll_ns          -> monitor_poll_ns (an idle dispatcher's loop period)
//   requeue_ns               -> requeue_ns (the dispatcher's time per preempted quantum taken back)
#pragma once

#include <string>
#include <string_view>

#include "sim/sim_config.h"

namespace quanta {

// Throws std::invalid_argument naming the file and the problem: missing, a directory, not
// JSON, not an object, an unknown key, or a known key that is not a non-negative number.
SimOverheads load_calibration(const std::string& path);
// The same for the file's contents; `path` only names it in messages. Every value of an
// accepted file is a finite number >= 0.
SimOverheads parse_calibration(std::string_view text, const std::string& path);

}  // namespace quanta
