#include "sim/calibration.h"

#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace quanta {

namespace {

// The keys the simulator reads, and the other measurements `quanta calibrate` writes (and
// the free-text keys of a file written by hand). Anything else is a typo, and a typo would
// silently leave an overhead at 0.
const std::set<std::string>& known_keys() {
  static const std::set<std::string> keys{
      // read
      "quantum_round_trip_ns", "yield_round_trip_ns", "preempt_overhead_ns", "probe_overhead_pct",
      "dispatch_ns_per_request", "quantum_jitter_ns", "request_overhead_ns", "flag_notification_ns",
      "signal_preemption_ns", "signal_cpu_cost_ns", "monitor_poll_ns", "requeue_ns",
      // written by quanta calibrate, not read
      "machine", "probe_ns", "tsc_read_ns", "user_interrupts",
      // notes, and what `quanta calibrate` could not measure on this machine (one CPU)
      "notes", "source", "not_measured"};
  return keys;
}

}  // namespace

SimOverheads load_calibration(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw std::invalid_argument("--calibration: '" + path + "' is a directory, not a JSON file");
  }
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("--calibration: cannot read '" + path + "'");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw std::invalid_argument("--calibration: cannot read '" + path + "'");
  return parse_calibration(text, path);
}

SimOverheads parse_calibration(std::string_view text, const std::string& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("--calibration: '" + path + "' is not valid JSON: " + e.what());
  }
  if (!doc.is_object()) throw std::invalid_argument("--calibration: '" + path + "' must hold a JSON object");
  for (const auto& [key, value] : doc.items()) {
    if (known_keys().count(key) == 0) {
      throw std::invalid_argument("--calibration: '" + path + "': unknown key '" + key +
                                  "' (the simulator reads quantum_round_trip_ns, yield_round_trip_ns, "
                                  "preempt_overhead_ns, probe_overhead_pct, dispatch_ns_per_request, "
                                  "quantum_jitter_ns, request_overhead_ns, flag_notification_ns, "
                                  "signal_preemption_ns, signal_cpu_cost_ns, monitor_poll_ns, requeue_ns)");
    }
  }
  SimOverheads o;
  auto read = [&](const char* key, double& into) {
    if (!doc.contains(key)) return;
    const auto& v = doc[key];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
      throw std::invalid_argument(std::string("--calibration: '") + path + "': key '" + key +
                                  "' must be a non-negative number");
    }
    into = v.get<double>();
  };
  read("quantum_round_trip_ns", o.preempt_overhead_ns);
  read("yield_round_trip_ns", o.preempt_overhead_ns);
  read("preempt_overhead_ns", o.preempt_overhead_ns);
  read("probe_overhead_pct", o.probe_overhead_pct);
  if (doc.contains("dispatch_ns_per_request") && doc["dispatch_ns_per_request"].is_object()) {
    nlohmann::json inner = doc["dispatch_ns_per_request"];
    for (const auto& [key, value] : inner.items()) {
      if (key != "dispatcher_only" && key != "two_level_noop" && key != "central_noop" && key != "jbsq2_noop") {
        throw std::invalid_argument("--calibration: '" + path + "': unknown key 'dispatch_ns_per_request." + key +
                                    "' (quanta calibrate writes dispatcher_only, two_level_noop, central_noop and "
                                    "jbsq2_noop there; the simulator reads dispatcher_only)");
      }
    }
    if (!inner.contains("dispatcher_only")) {
      throw std::invalid_argument("--calibration: '" + path +
                                  "': key 'dispatch_ns_per_request' is an object without 'dispatcher_only'");
    }
    doc["dispatch_ns_per_request"] = inner["dispatcher_only"];
  }
  read("dispatch_ns_per_request", o.dispatch_ns);
  read("quantum_jitter_ns", o.quantum_jitter_ns);
  read("request_overhead_ns", o.request_overhead_ns);
  // Latencies `quanta calibrate` writes as a spread: the median is the model's constant
  // (a host stall during one sample moves the mean, not the median).
  for (const char* key : {"flag_notification_ns", "signal_preemption_ns"}) {
    if (doc.contains(key) && doc[key].is_object()) {
      nlohmann::json inner = doc[key];
      if (!inner.contains("p50")) {
        throw std::invalid_argument("--calibration: '" + path + "': key '" + key + "' is an object without 'p50'");
      }
      doc[key] = inner["p50"];
    }
  }
  read("flag_notification_ns", o.flag_notification_ns);
  read("signal_preemption_ns", o.signal_latency_ns);
  read("signal_cpu_cost_ns", o.signal_cpu_ns);
  read("monitor_poll_ns", o.monitor_poll_ns);
  read("requeue_ns", o.requeue_ns);
  return o;
}

}  // namespace quanta
