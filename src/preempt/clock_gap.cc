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
// Keeps took * units in 64 bits when two speeds are compared (units < 2^31).
constexpr uint64_t kMaxMeasuredCycles = uint64_t(1) << 30;
// Keeps target * units in 64 bits: target is at most the cycle cap (< 2^32).
constexpr uint64_t kMaxMeasuredUnits = uint64_t(1) << 31;
constexpr uint64_t kMaxCycleCap = (uint64_t(1) << 32) - 1;
// The older speed counts only when it is clearly slower (by more than kSlowerDen/kSlowerNum):
// a steady loop's small jitter would otherwise make every gap short and add probes.
constexpr uint64_t kSlowerNum = 2, kSlowerDen = 3;
// A speed measured over a short gap is noisy (a few cache hits in a pointer walk make it
// look fast): a gap grows at most this many times over the one it was measured on.
constexpr uint64_t kMaxGrowth = 4;
// The aim moves by 1/2^kAimShift of each quantum's error: one late quantum (an interrupt)
// must not move it much.
constexpr int kAimShift = 3;

uint64_t sub_or_zero(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }
}  // namespace

uint64_t gap_cycle_cap(uint64_t max_cycles) { return std::min(max_cycles, kMaxCycleCap); }

uint64_t gap_yield_at_tsc(uint64_t deadline_tsc, uint64_t aim_cycles) { return sub_or_zero(deadline_tsc, aim_cycles); }

// A lead over kSerialLeadCycles means the work in flight is a serial backlog: the loop is a
// chain of dependent misses (pointer_chase: one 4x-unrolled iteration, four misses, ~2000
// cycles; lead ~3500). There the plain clock says little about how far the work is: after a
// resume the front end runs two iterations ahead within ~50 cycles, and a yield decided on
// that clock lands anywhere within a few iterations. Such a site reads the clock with rdtscp
// at every probe instead, i.e. waits for the backlog first, which costs nothing a chain could
// overlap (each miss waits for the one before anyway).
bool serial_gap_site(uint64_t lead_cycles) { return lead_cycles > kSerialLeadCycles; }

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
  const uint64_t measured = std::min(sub_or_zero(drained_tsc, now_tsc), gap_cycle_cap(max_cycles));
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
  return sub_or_zero(now_tsc, serial_gap_site(lead_cycles) ? 0 : lead_cycles);
}

// The speed of the last gap is its units over the cycles from its start to `measured_at`;
// the next gap covers what is left to the yield time (seen from `starts_at`: after a yield,
// in the new quantum), capped in cycles and in units. While the speed is unknown (the first
// gap after function entry: START is 0) it is the static gap, as short as without
// adaptation.
uint64_t plan_clock_gap(uint64_t* site, const GapPlanInput& in) {
  const uint64_t start = site[QUANTA_GAP_START];
  const uint64_t done = site[QUANTA_GAP_LENGTH] + in.overshoot;
  site[QUANTA_GAP_START] = in.starts_at_tsc;

  const bool known = start != 0 && in.measured_at_tsc > start && done != 0;
  uint64_t took = std::clamp<uint64_t>(in.measured_at_tsc - start, 1, kMaxMeasuredCycles);
  uint64_t units = std::min(done, kMaxMeasuredUnits);
  // Plan with the slower of the last two gaps' speeds: one gap that ran fast (a pointer walk
  // that hit in the cache for a while) must not stretch the next one past the deadline.
  const uint64_t prev_took = site[QUANTA_GAP_PREV_CYCLES];
  const uint64_t prev_units = site[QUANTA_GAP_PREV_UNITS];
  site[QUANTA_GAP_PREV_CYCLES] = took;
  site[QUANTA_GAP_PREV_UNITS] = known ? units : 0;

  uint64_t gap = in.static_gap;
  if (known) {
    if (prev_units != 0 && prev_took * units * kSlowerNum > took * prev_units * kSlowerDen) {
      took = prev_took;
      units = prev_units;
    }
    // left * units / took + 1 is the first gap end at or after the yield time at the
    // measured speed. (Aiming short and correcting with a second, short gap was tried: one
    // more probe per quantum for no better error on the kernels.)
    const uint64_t left = sub_or_zero(in.yield_at_tsc, in.starts_at_tsc);
    const uint64_t target = std::min(left, gap_cycle_cap(in.max_cycles));
    gap = std::min({target * units / took + 1, units * kMaxGrowth, in.max_gap});
  }
  site[QUANTA_GAP_LENGTH] = gap;
  return gap;
}

}  // namespace quanta
