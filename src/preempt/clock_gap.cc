// The rules of an adaptive clock probe (clock_gap.h). Why a loop probe aims at the
// deadline at all: a fixed stride must be short for the first probe after the deadline to
// come soon, and then every probe reads the clock whether the deadline is near or not. A
// probe that knows how fast its loop runs can have both: it reads the clock anyway, so it
// measures the cycles its last gap took and puts the next probe where the deadline will be
// (far from it, a long gap within caps; close to it, a gap that ends right after it).
#include "preempt/clock_gap.h"

#include <algorithm>

#include "quanta/clock_gap.h"

namespace quanta {

namespace {
// The aim moves by 1/2^kAimShift of each quantum's error: one late quantum (an interrupt)
// must not move it much.
constexpr int kAimShift = 3;
}  // namespace

// The clock read at a probe runs ahead of the work before it: out of order, the front end
// reaches the probe while the loop's older loads are still in flight, and a yield completes
// only once they have. The yield waits for them anyway, so the probe that yields reads the
// clock a second time in a way that waits too (rdtscp) for free: the difference is the lead.
// It is averaged with the last one and capped, so that an interrupt between the two reads
// does not distort the next quantum's first gap much, and it counts as serial only when two
// yields in a row measure a serial lead: one interrupt must not make a loop with parallel
// misses wait for them at every probe. A serial site's lead is kept: its reads wait for the
// backlog, so it would measure 0. (Letting it decay to be measured again was tried: each
// quantum spent finding it out again ends ~3500 cycles late, often enough to double
// pointer_chase's p99.) The site's state starts afresh at each function entry.
uint64_t next_gap_lead(uint64_t lead_cycles, uint64_t now_tsc, uint64_t drained_tsc, uint64_t max_cycles) {
  if (serial_gap_site(lead_cycles)) return lead_cycles;
  const uint64_t measured = std::min(gap_sub_or_zero(drained_tsc, now_tsc), gap_cycle_cap(max_cycles));
  const uint64_t averaged = (lead_cycles + measured) >> 1;
  const bool twice = lead_cycles >= kSerialLeadCycles && measured > kSerialLeadCycles;
  return twice ? averaged : std::min(averaged, kSerialLeadCycles);
}

// On top of the lead, the probe that yields comes some way past the time it aimed at (half
// an iteration on average, a whole one when the speed was misjudged). Aimed at the deadline
// itself, every quantum would end late by the sum whatever its length (pointer_chase: ~3800
// cycles at 2 us and at 10 us). So each site learns how early to aim: after each yield it
// compares the runtime's stamp of when the quantum really ended (the switch back included)
// with the deadline, and moves the aim by an eighth of the difference, within [0, cap].
// Not every stamp measures the site: one older than the probe is not this yield's (none
// happened), a signal forces a yield with deadline 0, and a quantum can end during a long
// preempt-disabled region; an error beyond the cap either way is one of those.
uint64_t next_gap_aim(uint64_t aim_cycles, uint64_t stop_tsc, uint64_t deadline_tsc, uint64_t measured_at_tsc,
                      uint64_t max_cycles) {
  const uint64_t cap = gap_cycle_cap(max_cycles);
  const uint64_t err = stop_tsc - deadline_tsc;  // two's complement: negative when early
  const bool plausible = err + cap < 2 * cap && stop_tsc > measured_at_tsc;
  if (!plausible) return aim_cycles;
  const int64_t moved = int64_t(aim_cycles) + (int64_t(err) >> kAimShift);
  return uint64_t(std::clamp<int64_t>(moved, 0, int64_t(cap)));
}

// The switch drained the pipeline: the loop restarts with no lead and builds it up within
// its first iterations, which the clock shows as a burst of speed. The gap starts `lead`
// earlier, on the clock the loop's later probes read, so that its speed is not overestimated
// and it ends where the work reaches the deadline. A serial site's probes read a drained
// clock: no shift.
uint64_t resumed_gap_start_tsc(uint64_t now_tsc, uint64_t lead_cycles) {
  return gap_sub_or_zero(now_tsc, serial_gap_site(lead_cycles) ? 0 : lead_cycles);
}


}  // namespace quanta
