// `quanta load --latency-log`: the run cut into intervals of intended send time, written
// as HdrHistogram's interval log (the default) or as a CSV of per-interval counts and
// percentiles. docs/load.md describes both files.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/schedule.h"
#include "load/load_run.h"

namespace quanta {

inline constexpr uint64_t kLatencyIntervalNs = 1'000'000'000;  // both logs: one line a second

// What the requests meant to go out in one interval came to. Requests whose payload the
// app could not build were never sent and are in no interval.
struct LatencyInterval {
  uint64_t index = 0;  // covers intended send times [index, index + 1) * kLatencyIntervalNs
  uint64_t sent = 0, dropped = 0, overloaded = 0, bad_request = 0;
  std::vector<uint64_t> latencies_ns;  // the answered (OK) ones
};

// Calls `emit` for every interval from 0 to the last scheduled request's, in order, those
// with no request included. Every request is counted, warm-up included.
void for_each_latency_interval(const LoadRunOutcome& outcome, const std::vector<Arrival>& schedule,
                               const std::function<void(const LatencyInterval&)>& emit);

// The HdrHistogram interval log's text (nanoseconds; dropped requests left out, as its
// header says).
std::string latency_interval_hdr_log(const LoadRunOutcome& outcome, const std::vector<Arrival>& schedule);

// The CSV's text: one row per interval that sent anything, with its counts and latency
// percentiles in µs ("inf" past the answered share).
std::string latency_interval_csv(const LoadRunOutcome& outcome, const std::vector<Arrival>& schedule);

}  // namespace quanta
