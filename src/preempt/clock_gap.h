// The rules of an adaptive clock probe (include/quanta/clock_gap.h), as functions of the
// values the probe read: no clock reads, no thread-locals, so tests can give them any
// clock. quanta_clock_gap() (probe_abi.cc) reads the clock and the deadline, yields, and
// calls these in order.
#pragma once

#include <cstdint>

namespace quanta {

// A lead above this many cycles is a serial backlog, a chain of dependent misses
// (serial_gap_site()).
inline constexpr uint64_t kSerialLeadCycles = 1024;

// What a probe knows when it plans its next gap.
struct GapPlanInput {
  uint64_t measured_at_tsc;  // the clock at this probe: where the last gap ended
  uint64_t starts_at_tsc;    // where the next gap starts (after a yield, in the new quantum)
  uint64_t yield_at_tsc;     // when the site should yield (gap_yield_at_tsc())
  uint64_t static_gap;       // units, while the speed is unknown
  uint64_t max_gap;          // units
  uint64_t overshoot;        // units the loop ran past its last gap
  uint64_t max_cycles;       // the longest gap in cycles (clamped by gap_cycle_cap())
};

// The cycle cap as the planning uses it: at most 2^32 - 1, which keeps every product of
// the cap with a gap (at most 2^31 units) within 64 bits. The pass never passes more.
uint64_t gap_cycle_cap(uint64_t max_cycles);

// The site's yield time: `aim` cycles before the deadline (0 if that is before 0).
uint64_t gap_yield_at_tsc(uint64_t deadline_tsc, uint64_t aim_cycles);

// Whether the site reads the clock only once older work has retired (rdtscp).
bool serial_gap_site(uint64_t lead_cycles);

// The site's new lead, just before it yields: `now` is the probe's clock read, `drained`
// one that waited for all older instructions.
uint64_t next_gap_lead(uint64_t lead_cycles, uint64_t now_tsc, uint64_t drained_tsc, uint64_t max_cycles);

// The site's new aim, after it yielded at `deadline` from a probe that read `measured_at`:
// `stop` is when the runtime got the CPU back (quanta_task_last_stop_tsc()).
uint64_t next_gap_aim(uint64_t aim_cycles, uint64_t stop_tsc, uint64_t deadline_tsc, uint64_t measured_at_tsc,
                      uint64_t max_cycles);

// Where the first gap after a yield starts: the resumed clock moved back by the lead
// (not for a serial site).
uint64_t resumed_gap_start_tsc(uint64_t now_tsc, uint64_t lead_cycles);

// Plans the next gap from the last one's speed; updates the site's START, LENGTH,
// PREV_CYCLES and PREV_UNITS words (`site` has QUANTA_GAP_WORDS words). Returns the gap.
uint64_t plan_clock_gap(uint64_t* site, const GapPlanInput& in);

}  // namespace quanta
