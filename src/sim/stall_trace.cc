#include "sim/stall_trace.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace quanta {
namespace {

[[noreturn]] void bad(const std::string& path, const std::string& why) {
  throw std::invalid_argument("--stalls: " + path + ": " + why);
}

constexpr double kNever = std::numeric_limits<double>::infinity();

}  // namespace

StallTrace load_stall_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) bad(path, "cannot be read");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    bad(path, std::string("is not JSON (") + e.what() + ")");
  }
  if (!doc.is_object() || !doc.contains("seconds") || !doc["seconds"].is_number() || !doc.contains("cpus") ||
      !doc["cpus"].is_array() || doc["cpus"].empty()) {
    bad(path, "expected the JSON of quanta-bench-stalls --trace (\"seconds\" and a non-empty \"cpus\" list)");
  }
  StallTrace trace;
  trace.period_ns = doc["seconds"].get<double>() * 1e9;
  if (!(trace.period_ns > 0) || !std::isfinite(trace.period_ns)) bad(path, "\"seconds\" must be above 0");
  for (const nlohmann::json& cpu : doc["cpus"]) {
    if (!cpu.is_object() || !cpu.contains("trace_us") || !cpu["trace_us"].is_array()) {
      bad(path, "a CPU has no \"trace_us\" list (record it with quanta-bench-stalls --trace)");
    }
    std::vector<StallSpan> spans;
    double last_end = 0;
    for (const nlohmann::json& gap : cpu["trace_us"]) {
      if (!gap.is_array() || gap.size() != 2 || !gap[0].is_number() || !gap[1].is_number()) {
        bad(path, "a stall is not [start_us, length_us]");
      }
      double start = gap[0].get<double>() * 1e3;
      const double length = gap[1].get<double>() * 1e3;
      // The recording prints µs with rounding: a start a fraction of a ns before the last
      // end is the same instant.
      if (!std::isfinite(start) || !std::isfinite(length) || start < last_end - 1.0 || length <= 0) {
        bad(path, "stalls must have a positive length and come in order without overlapping");
      }
      start = std::max(start, last_end);
      spans.push_back({start, length});
      last_end = start + length;
      // The last gap of a recording can end after it (the spin noticed it late).
      trace.period_ns = std::max(trace.period_ns, last_end);
    }
    trace.cpus.push_back(std::move(spans));
  }
  return trace;
}

StalledCpu::StalledCpu(const std::vector<StallSpan>& spans, double period_ns, double threshold_ns)
    : spans_(spans), period_ns_(period_ns), log_(static_cast<uint64_t>(std::llround(threshold_ns))) {}

StallSpan StalledCpu::span(uint64_t k) const {
  if (spans_.empty()) return {kNever, 0};
  const StallSpan& s = spans_[k % spans_.size()];
  return {s.start_ns + static_cast<double>(k / spans_.size()) * period_ns_, s.length_ns};
}

StallSpan StalledCpu::first_ending_after(double t) {
  for (;;) {
    const StallSpan s = span(next_);
    if (s.start_ns + s.length_ns > t) return s;
    ++next_;
  }
}

double StalledCpu::available_at(double t) {
  const StallSpan s = first_ending_after(t);
  return s.start_ns <= t ? s.start_ns + s.length_ns : t;
}

StalledCpu::Stint StalledCpu::run(double t, double work_ns, double quantum_ns) {
  t = available_at(t);
  const double deadline = t + quantum_ns;
  double done = 0;
  for (;;) {
    const StallSpan s = first_ending_after(t);
    if (s.start_ns <= t) {  // a stall that begins right where the last one ended
      t = s.start_ns + s.length_ns;
      if (t >= deadline) return {t, done, false};
      continue;
    }
    const double left = work_ns - done;
    if (t + left <= std::min(s.start_ns, deadline)) return {t + left, work_ns, true};
    if (deadline <= s.start_ns) return {deadline, done + (deadline - t), false};
    done += s.start_ns - t;
    t = s.start_ns + s.length_ns;
    if (t >= deadline) return {t, done, false};
  }
}

void StalledCpu::log_until(double t) {
  for (;;) {
    const StallSpan s = span(next_logged_);
    if (s.start_ns + s.length_ns > t) return;
    log_.observe(static_cast<uint64_t>(std::llround(s.start_ns)),
                 static_cast<uint64_t>(std::llround(s.start_ns + s.length_ns)));
    ++next_logged_;
  }
}

}  // namespace quanta
