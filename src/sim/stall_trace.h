// Host stalls for the simulator: a machine's stalls as `quanta-bench-stalls --trace`
// recorded them, replayed on every simulated CPU (the dispatcher's and each worker's), so
// a simulation can show what this machine's interference does to a run, and check the
// rule that decides which requests a stall touched (docs/sim.md, "Injected stalls").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stats/stall_log.h"

namespace quanta {

struct StallSpan {
  double start_ns;
  double length_ns;
};

struct StallTrace {
  double period_ns = 0;                       // the recording's length: the trace repeats
  std::vector<std::vector<StallSpan>> cpus;   // per recorded CPU, in start order, not overlapping
};

// Reads quanta-bench-stalls --trace JSON. Throws std::invalid_argument starting with
// "--stalls: " naming what is wrong with the file.
StallTrace load_stall_trace(const std::string& path);

// One simulated CPU under a recorded CPU's stalls (the trace repeated end to end). Its
// queries must come with times that never go back.
class StalledCpu {
 public:
  // `threshold_ns`: stalls longer than this are logged, as a runtime thread would notice
  // them; shorter ones still take the CPU away, unseen.
  StalledCpu(const std::vector<StallSpan>& spans, double period_ns, double threshold_ns);

  // When work can run at `t`: t, or the end of the stall covering it.
  double available_at(double t);

  struct Stint {
    double end_ns;     // when the CPU stops running the task
    double work_ns;    // work done in it
    bool finished;     // all of `work_ns` asked for was done
  };
  // `work_ns` of work from `t`, stopped by a clock deadline `quantum_ns` after the work
  // could first run (a stall past the deadline ends the quantum when it ends, as a clock
  // probe would).
  Stint run(double t, double work_ns, double quantum_ns);

  // Logs every stall over the threshold that ended by `t`.
  void log_until(double t);
  const StallLog& log() const { return log_; }

 private:
  StallSpan span(uint64_t k) const;  // the k-th stall of the repeated trace
  StallSpan first_ending_after(double t);

  const std::vector<StallSpan>& spans_;
  double period_ns_;
  uint64_t next_ = 0;         // the timing cursor: no stall before it ends after a later query
  uint64_t next_logged_ = 0;
  StallLog log_;
};

}  // namespace quanta
