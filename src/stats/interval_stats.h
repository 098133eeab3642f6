// The sojourns of the requests that finished in one interval of a run (--interval-s): a
// time series of latency, from the simulator and from the runtime alike.
#pragma once

#include <cstdint>

namespace quanta {

struct IntervalStats {
  uint64_t completed = 0;
  double p50_us = 0;   // 0 when nothing finished in the interval
  double p99_us = 0;
  double p999_us = 0;
};

}  // namespace quanta
