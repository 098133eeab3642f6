#include "load/load_stats.h"

#include <algorithm>
#include <cmath>

#include "core/tsc.h"

namespace quanta {

void LoadClassStats::merge(const LoadClassStats& other) {
  latency_ns.merge(other.latency_ns);
  slowdown_milli.merge(other.slowdown_milli);
  sent += other.sent;
  dropped += other.dropped;
  overloaded += other.overloaded;
  bad_request += other.bad_request;
  build_failures += other.build_failures;
}

std::optional<double> percentile_with_drops(const Histogram& answered, uint64_t dropped, double percentile) {
  const uint64_t answered_count = answered.count();
  const uint64_t total = answered_count + dropped;
  if (total == 0) return 0.0;
  // The rank of the percentile among all requests, as Histogram::value_at_percentile ranks.
  const double rank = std::ceil(percentile / 100.0 * static_cast<double>(total));
  if (rank > static_cast<double>(answered_count)) return std::nullopt;
  // The same rank among the answered ones alone.
  const double answered_percentile = 100.0 * rank / static_cast<double>(answered_count);
  return static_cast<double>(answered.value_at_percentile(std::min(100.0, answered_percentile)));
}

uint64_t latency_ns_of(const LoadRunOutcome& o, const Arrival& a, const RequestSlot& slot) {
  const uint64_t intended = o.start_tsc + ns_to_cycles(static_cast<double>(a.arrival_ns));
  return slot.reply_tsc > intended ? static_cast<uint64_t>(cycles_to_ns(slot.reply_tsc - intended)) : 0;
}

LoadStats compute_load_stats(const LoadRunOutcome& o, const std::vector<Arrival>& schedule, std::size_t class_count,
                             uint64_t warmup_ns, bool nominal_known) {
  LoadStats stats;
  stats.classes.resize(class_count);
  uint64_t last_reply = 0;
  for (std::size_t id = 0; id < schedule.size(); ++id) {
    const Arrival& a = schedule[id];
    const RequestSlot& slot = o.table[id];
    last_reply = std::max(last_reply, slot.reply_tsc);
    if (a.arrival_ns < warmup_ns || a.class_index >= class_count) continue;
    ++stats.measured_requests;
    LoadClassStats& c = stats.classes[a.class_index];
    if (slot.build_failed) {
      ++c.build_failures;
      continue;
    }
    ++c.sent;
    switch (slot.outcome) {
      case Outcome::kOk: {
        const uint64_t latency = latency_ns_of(o, a, slot);
        c.latency_ns.record(latency);
        if (nominal_known && a.service_ns > 0) c.slowdown_milli.record(latency * 1000 / a.service_ns);
        break;
      }
      case Outcome::kOverloaded: ++c.overloaded; break;
      case Outcome::kBadRequest: ++c.bad_request; break;
      default: ++c.dropped; break;  // dropped (a finished run leaves nothing in flight)
    }
  }
  if (last_reply > o.start_tsc) stats.until_last_reply_s = cycles_to_ns(last_reply - o.start_tsc) * 1e-9;
  return stats;
}

}  // namespace quanta
