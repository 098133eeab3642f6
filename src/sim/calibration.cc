#include "sim/calibration.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace quanta {

SimOverheads load_calibration(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("--calibration: cannot read '" + path + "'");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("--calibration: '" + path + "' is not valid JSON: " + e.what());
  }
  if (!doc.is_object()) throw std::invalid_argument("--calibration: '" + path + "' must hold a JSON object");
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
    if (!inner.contains("dispatcher_only")) {
      throw std::invalid_argument("--calibration: '" + path +
                                  "': key 'dispatch_ns_per_request' is an object without 'dispatcher_only'");
    }
    doc["dispatch_ns_per_request"] = inner["dispatcher_only"];
  }
  read("dispatch_ns_per_request", o.dispatch_ns);
  read("quantum_jitter_ns", o.quantum_jitter_ns);
  read("request_overhead_ns", o.request_overhead_ns);
  return o;
}

}  // namespace quanta
