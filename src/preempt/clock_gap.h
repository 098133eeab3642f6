// The rules of an adaptive clock probe (include/quanta/clock_gap.h), as functions of the
// values the probe read: no clock reads, no thread-locals, so tests can give them any
// clock. quanta_clock_gap() (probe_abi.cc) reads the clock and the deadline, yields, and
// calls these in order. The ones every gap runs (its yield time, whether the site is
// serial, the plan) are defined here, inline: quanta_clock_gap() runs once per gap of every
// adaptive loop, and as calls into clock_gap.cc they cost more than their bodies (lz4 under
// callgrind: 37M of its 67M added instructions in them). The ones a yield runs are in
// clock_gap.cc.
#pragma once

#include <algorithm>
#include <cstdint>

#include "quanta/clock_gap.h"

namespace quanta {

// A lead above this many cycles is a serial backlog, a chain of dependent misses
// (serial_gap_site()).
inline constexpr uint64_t kSerialLeadCycles = 1024;

// Keeps took * units in 64 bits when two speeds are compared (units < 2^31).
inline constexpr uint64_t kGapMaxMeasuredCycles = uint64_t(1) << 30;
// Keeps target * units in 64 bits: target is at most the cycle cap (< 2^32).
inline constexpr uint64_t kGapMaxMeasuredUnits = uint64_t(1) << 31;
inline constexpr uint64_t kGapMaxCycleCap = (uint64_t(1) << 32) - 1;
// The older speed counts only when it is clearly slower (by more than kGapSlowerDen/kGapSlowerNum):
// a steady loop's small jitter would otherwise make every gap short and add probes.
inline constexpr uint64_t kGapSlowerNum = 2, kGapSlowerDen = 3;
// A speed measured over a short gap is noisy (a few cache hits in a pointer walk make it
// look fast): a gap grows at most this many times over the one it was measured on.
inline constexpr uint64_t kGapMaxGrowth = 4;
// Within reach of the yield time, a gap stops this many cycles short of it when more than
// twice as many are left, so that the last stretch is planned at a speed measured right
// before it (plan_clock_gap()).
inline constexpr uint64_t kGapFinalCycles = 1024;

inline uint64_t gap_sub_or_zero(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

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
inline uint64_t gap_cycle_cap(uint64_t max_cycles) { return std::min(max_cycles, kGapMaxCycleCap); }

// The site's yield time: `aim` cycles before the deadline (0 if that is before 0).
inline uint64_t gap_yield_at_tsc(uint64_t deadline_tsc, uint64_t aim_cycles) {
  return gap_sub_or_zero(deadline_tsc, aim_cycles);
}

// Whether the site reads the clock only once older work has retired (rdtscp).
// A lead over kSerialLeadCycles means the work in flight is a serial backlog: the loop is a
// chain of dependent misses (pointer_chase: one 4x-unrolled iteration, four misses, ~2000
// cycles; lead ~3500). There the plain clock says little about how far the work is: after a
// resume the front end runs two iterations ahead within ~50 cycles, and a yield decided on
// that clock lands anywhere within a few iterations. Such a site reads the clock with rdtscp
// at every probe instead, i.e. waits for the backlog first, which costs nothing a chain could
// overlap (each miss waits for the one before anyway).
inline bool serial_gap_site(uint64_t lead_cycles) { return lead_cycles > kSerialLeadCycles; }

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
// The speed of the last gap is its units over the cycles from its start to `measured_at`;
// the next gap covers what is left to the yield time (seen from `starts_at`: after a yield,
// in the new quantum), capped in cycles and in units. While the speed is unknown (the first
// gap after function entry: START is 0) it is the static gap, as short as without
// adaptation.
inline uint64_t plan_clock_gap(uint64_t* site, const GapPlanInput& in) {
  const uint64_t start = site[QUANTA_GAP_START];
  const uint64_t done = site[QUANTA_GAP_LENGTH] + in.overshoot;
  site[QUANTA_GAP_START] = in.starts_at_tsc;

  const bool known = start != 0 && in.measured_at_tsc > start && done != 0;
  uint64_t took = std::clamp<uint64_t>(in.measured_at_tsc - start, 1, kGapMaxMeasuredCycles);
  uint64_t units = std::min(done, kGapMaxMeasuredUnits);
  // Plan with the slower of the last two gaps' speeds: one gap that ran fast (a pointer walk
  // that hit in the cache for a while) must not stretch the next one past the deadline.
  const uint64_t prev_took = site[QUANTA_GAP_PREV_CYCLES];
  const uint64_t prev_units = site[QUANTA_GAP_PREV_UNITS];
  site[QUANTA_GAP_PREV_CYCLES] = took;
  site[QUANTA_GAP_PREV_UNITS] = known ? units : 0;

  uint64_t gap = in.static_gap;
  if (known) {
    if (prev_units != 0 && prev_took * units * kGapSlowerNum > took * prev_units * kGapSlowerDen) {
      took = prev_took;
      units = prev_units;
    }
    // target * units / took + 1 is the first gap end at or after `target` cycles at the
    // measured speed. A gap that would reach the yield time stops kGapFinalCycles short of
    // it, unless the whole stretch is short: where an iteration's cost varies (xz's match
    // finder, zlib's chains), a speed measured one gap back misjudges a whole quantum's
    // worth of iterations, and the yield lands off by a share of that stretch; one more
    // clock read per quantum ends it by a share of the last 1024 cycles instead. On the
    // real programs the mean absolute error fell 6-11% (experiments/real_program_timing.py;
    // 512 and 2048 cycles did about as well), on the 14 kernels 20% (quanta-bench-probes),
    // though word_count and string_match, steady loops, got worse. Outside a task (no
    // deadline) gaps never reach it.
    const uint64_t left = gap_sub_or_zero(in.yield_at_tsc, in.starts_at_tsc);
    const uint64_t cap = gap_cycle_cap(in.max_cycles);
    const uint64_t target = left > cap ? cap : left > 2 * kGapFinalCycles ? left - kGapFinalCycles : left;
    // Where a cap in units binds (a new site's gaps growing, a gap at max_gap), one multiply
    // tells so without the 64-bit division: q + 1 >= capped exactly when target * units >=
    // (capped - 1) * took, for q = target * units / took. (capped - 1) * took < 2^33 * 2^30.
    const uint64_t capped = std::min(units * kGapMaxGrowth, in.max_gap);
    gap = capped <= 1 || target * units >= (capped - 1) * took ? capped : target * units / took + 1;
  }
  site[QUANTA_GAP_LENGTH] = gap;
  return gap;
}

}  // namespace quanta
