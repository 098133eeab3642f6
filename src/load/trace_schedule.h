// Send times from a trace file, for `quanta load --arrivals-file`: replaying arrivals
// recorded elsewhere (or shaped by hand: bursts, ramps) instead of drawing them.
//
// One request per line: the intended send time in microseconds from the start (a number,
// never below the line before), then optionally the request's class, by name (a class's
// key or label, as the report names it) or by index. A line without a class draws one,
// with its service time, from the workload as the drawn schedules do for the seed. `#`
// starts a comment; blank lines are skipped.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

#include "io/schedule.h"

namespace quanta {

// Requests a trace may hold: each is 16 bytes in memory before the run starts.
constexpr std::size_t kMaxTraceRequests = 100'000'000;

// Reads a trace from `in`; errors are std::invalid_argument as "NAME:LINE: what is wrong"
// (an empty trace: "NAME: ..."). `max_requests` is for tests; the cap otherwise.
std::vector<Arrival> read_trace_schedule(std::istream& in, const std::string& name, const Workload& workload,
                                         uint64_t seed, std::size_t max_requests = kMaxTraceRequests);

// Opens and reads the file at `path` (std::invalid_argument naming it if it cannot be read).
std::vector<Arrival> load_trace_schedule(const std::string& path, const Workload& workload, uint64_t seed);

}  // namespace quanta
