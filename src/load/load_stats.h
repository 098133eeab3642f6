// The client's statistics, computed from the in-flight table after the run: per class, the
// latency of every answered request (intended send time to reply), with each dropped
// request counted as an infinite latency, so a percentile above the answered share reads
// "inf" rather than pretending the drops did not happen. OVERLOADED and BAD_REQUEST replies
// are counted, not timed: their latency says nothing about serving a request.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "io/schedule.h"
#include "load/load_run.h"
#include "stats/histogram.h"

namespace quanta {

struct LoadClassStats {
  Histogram latency_ns;       // answered (OK) requests
  Histogram slowdown_milli;   // latency / the request's nominal service time, x 1000 (when known)
  uint64_t sent = 0;
  uint64_t dropped = 0;       // no reply within the timeout, or the send failed: latency infinite
  uint64_t overloaded = 0;
  uint64_t bad_request = 0;
  uint64_t build_failures = 0;

  void merge(const LoadClassStats& other);
};

// A percentile over the answered requests and the dropped ones together (dropped ranked
// above every answered one): nullopt ("inf") when it falls among the dropped. In the
// histogram's unit.
std::optional<double> percentile_with_drops(const Histogram& answered, uint64_t dropped, double percentile);

// An answered request's latency: from its intended send time to its reply, in ns (0 if
// the reply came first, which only a clock step could do).
uint64_t latency_ns_of(const LoadRunOutcome& outcome, const Arrival& arrival, const RequestSlot& slot);

struct LoadStats {
  std::vector<LoadClassStats> classes;  // indexed by class
  uint64_t measured_requests = 0;       // scheduled after the warm-up
  double until_last_reply_s = 0;       // schedule start to the last reply: the achieved rate divides by it
};

// `warmup_ns`: requests intended before it are not measured. `nominal_known`: the
// workload's service times are the requests' (not an app's classes without them).
LoadStats compute_load_stats(const LoadRunOutcome& outcome, const std::vector<Arrival>& schedule,
                             std::size_t class_count, uint64_t warmup_ns, bool nominal_known);

}  // namespace quanta
