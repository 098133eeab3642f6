// The adaptive clock probe's rules (src/preempt/clock_gap.h) on chosen clock values, and
// quanta_clock_gap() itself outside and inside a task, where only counts and caps are
// checked (its clock reads are real).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "preempt/clock_gap.h"
#include "quanta/clock_gap.h"
#include "quanta/fn.h"
#include "quanta/probe.h"
#include "past_deadline.h"

namespace {

using quanta::GapPlanInput;
using quanta::plan_clock_gap;

constexpr uint64_t kCap = 8192;  // the pass's default -quanta-probe-max-cycles
// Tests of how a gap is planned from a speed give the yield time this much later: the last
// stretch before it is planned apart (TheLastStretchBeforeTheYieldTimeIsAGapOfItsOwn).
constexpr uint64_t kFinal = quanta::kGapFinalCycles;

// A site as the pass sets it up at function entry, with a first gap of `gap`.
struct Site {
  uint64_t w[QUANTA_GAP_WORDS];
  explicit Site(uint64_t gap) {
    for (uint64_t& x : w) x = 0xdead;  // the pass leaves PREV_CYCLES unset
    w[QUANTA_GAP_START] = 0;
    w[QUANTA_GAP_LENGTH] = gap;
    w[QUANTA_GAP_PREV_UNITS] = 0;
    w[QUANTA_GAP_LEAD] = 0;
    w[QUANTA_GAP_AIM] = 0;
  }
};

// A probe at `now` with no yield in between: the gap starts where it is measured.
GapPlanInput at(uint64_t now, uint64_t yield_at, uint64_t static_gap = 100, uint64_t max_gap = 6400,
                uint64_t overshoot = 0, uint64_t max_cycles = kCap) {
  return {now, now, yield_at, static_gap, max_gap, overshoot, max_cycles};
}

// A site whose last gap of `units` started at `start`.
Site measuring(uint64_t start, uint64_t units) {
  Site s(units);
  s.w[QUANTA_GAP_START] = start;
  return s;
}

TEST(ClockGap, UnknownRateUsesTheStaticGap) {
  Site s(100);
  EXPECT_EQ(plan_clock_gap(s.w, at(50'000, 1'000'000, 100)), 100u);
  EXPECT_EQ(s.w[QUANTA_GAP_START], 50'000u);  // the next gap is measured from here
  EXPECT_EQ(s.w[QUANTA_GAP_LENGTH], 100u);
  EXPECT_EQ(s.w[QUANTA_GAP_PREV_UNITS], 0u);  // nothing measured yet
}

TEST(ClockGap, AClockThatDidNotMoveOnOrAnEmptyGapIsAnUnknownRate) {
  Site back = measuring(60'000, 100);
  EXPECT_EQ(plan_clock_gap(back.w, at(50'000, 1'000'000, 7)), 7u);  // another CPU's clock, say
  EXPECT_EQ(back.w[QUANTA_GAP_PREV_UNITS], 0u);
  Site same = measuring(50'000, 100);
  EXPECT_EQ(plan_clock_gap(same.w, at(50'000, 1'000'000, 7)), 7u);
  Site empty = measuring(40'000, 0);
  EXPECT_EQ(plan_clock_gap(empty.w, at(50'000, 1'000'000, 7)), 7u);
}

TEST(ClockGap, MeasuredRateEndsTheGapJustAfterTheYieldTime) {
  // 100 units in 1000 cycles; 400 cycles left: 400 * 100 / 1000 + 1 = 41 units.
  Site s = measuring(10'000, 100);
  EXPECT_EQ(plan_clock_gap(s.w, at(11'000, 11'400)), 41u);
  EXPECT_EQ(s.w[QUANTA_GAP_START], 11'000u);
  EXPECT_EQ(s.w[QUANTA_GAP_LENGTH], 41u);
  EXPECT_EQ(s.w[QUANTA_GAP_PREV_CYCLES], 1000u);
  EXPECT_EQ(s.w[QUANTA_GAP_PREV_UNITS], 100u);
}

TEST(ClockGap, OvershootCountsAsUnitsTheGapRan) {
  // A budget that went 50 below zero ran 150 units: 400 * 150 / 1000 + 1 = 61.
  Site s = measuring(10'000, 100);
  EXPECT_EQ(plan_clock_gap(s.w, at(11'000, 11'400, 100, 6400, 50)), 61u);
  EXPECT_EQ(s.w[QUANTA_GAP_PREV_UNITS], 150u);
}

TEST(ClockGap, DeadlinePassedGivesTheShortestGap) {
  Site s = measuring(10'000, 100);
  EXPECT_EQ(plan_clock_gap(s.w, at(11'000, 10'500)), 1u);
  Site t = measuring(10'000, 100);
  EXPECT_EQ(plan_clock_gap(t.w, at(11'000, 11'000)), 1u);
}

TEST(ClockGap, GrowthIsCappedAtFourTimesTheLastGapAndAtTheMaxGap) {
  // Far from the deadline: the cycle cap would allow 8192 * 100 / 1000 + 1 = 820 units.
  Site s = measuring(10'000, 100);
  EXPECT_EQ(plan_clock_gap(s.w, at(11'000, 1'000'000)), 400u);
  Site t = measuring(10'000, 100);
  EXPECT_EQ(plan_clock_gap(t.w, at(11'000, 1'000'000, 100, 300)), 300u);
}

TEST(ClockGap, CycleCapLimitsTheGapFarFromTheDeadline) {
  // 1000 cycles at most: 1000 * 100 / 1000 + 1 = 101 units.
  Site s = measuring(10'000, 100);
  EXPECT_EQ(plan_clock_gap(s.w, at(11'000, 1'000'000, 100, 6400, 0, 1000)), 101u);
}

// The caps in units are found without dividing (target * units against (capped - 1) *
// took): at the edge, one cycle either way, the gap must be the division's.
TEST(ClockGap, CapsInUnitsBindExactlyWhereTheDivisionReachesThem) {
  // 100 units in 1000 cycles, capped at 4x = 400: 400 = target * 100 / 1000 + 1 from
  // target = 3990 on; 3989 cycles left give 399.
  for (uint64_t left : {3989u, 3990u, 3999u, 4000u}) {
    Site s = measuring(10'000, 100);
    const uint64_t want = std::min<uint64_t>(left * 100 / 1000 + 1, 400);
    EXPECT_EQ(plan_clock_gap(s.w, at(11'000, 11'000 + left + kFinal)), want) << left;
  }
  // max_gap 250 under the 4x cap: reached from 2490 cycles left.
  for (uint64_t left : {2489u, 2490u}) {
    Site s = measuring(10'000, 100);
    EXPECT_EQ(plan_clock_gap(s.w, at(11'000, 11'000 + left + kFinal, 100, 250)), left == 2489 ? 249u : 250u);
  }
  // A max_gap of 1 (the smallest) is the gap whatever the speed.
  Site one = measuring(10'000, 100);
  EXPECT_EQ(plan_clock_gap(one.w, at(11'000, 1'000'000, 1, 1)), 1u);
}

TEST(ClockGap, PlansWithTheGapBeforeWhenItWasClearlySlower) {
  // The gap before: 100 units in 2000 cycles, more than 1.5x slower than the last one's
  // 100 in 1000. 4000 cycles to plan: 4000 * 100 / 2000 + 1 = 201 (not 401).
  Site s = measuring(10'000, 100);
  s.w[QUANTA_GAP_PREV_CYCLES] = 2000;
  s.w[QUANTA_GAP_PREV_UNITS] = 100;
  EXPECT_EQ(plan_clock_gap(s.w, at(11'000, 15'000 + kFinal)), 201u);
  // The last gap is remembered as it ran, whichever speed planned.
  EXPECT_EQ(s.w[QUANTA_GAP_PREV_CYCLES], 1000u);
  EXPECT_EQ(s.w[QUANTA_GAP_PREV_UNITS], 100u);
}

TEST(ClockGap, IgnoresAGapBeforeThatWasOnlySlightlySlower) {
  // 1400 cycles for 100 units is 1.4x slower: jitter, the last gap plans.
  Site s = measuring(10'000, 100);
  s.w[QUANTA_GAP_PREV_CYCLES] = 1400;
  s.w[QUANTA_GAP_PREV_UNITS] = 100;
  EXPECT_EQ(plan_clock_gap(s.w, at(11'000, 15'000 + kFinal)), 400u);  // 401, capped at 4x
}

// A gap that would reach the yield time ends kGapFinalCycles short of it, so that the last
// stretch is planned at the speed of the gap before it; a short stretch is one gap, and a
// gap the cycle cap stops before the yield time is not shortened.
TEST(ClockGap, TheLastStretchBeforeTheYieldTimeIsAGapOfItsOwn) {
  // 100 units in 1000 cycles. 3000 cycles left: 1976 planned, 1976 * 100 / 1000 + 1 = 198.
  Site s = measuring(10'000, 100);
  EXPECT_EQ(plan_clock_gap(s.w, at(11'000, 14'000)), 198u);
  // 2 * 1024 cycles left: one gap, 205; one cycle more: 1025 planned, 103.
  Site whole = measuring(10'000, 100);
  EXPECT_EQ(plan_clock_gap(whole.w, at(11'000, 11'000 + 2 * kFinal)), 205u);
  Site split = measuring(10'000, 100);
  EXPECT_EQ(plan_clock_gap(split.w, at(11'000, 11'001 + 2 * kFinal)), 103u);
  // 1 unit a cycle under a 3000-cycle cap: 3500 left is beyond the cap (3001 units), 3000
  // within it (1976 planned, 1977 units).
  Site far = measuring(10'000, 1000);
  EXPECT_EQ(plan_clock_gap(far.w, at(11'000, 14'500, 100, 6400, 0, 3000)), 3001u);
  Site near = measuring(10'000, 1000);
  EXPECT_EQ(plan_clock_gap(near.w, at(11'000, 14'000, 100, 6400, 0, 3000)), 1977u);
}

TEST(ClockGap, HugeMeasurementsAreClampedBeforeTheyMultiply) {
  // 2^40 units over 2^40 cycles: units clamp to 2^31, cycles to 2^30, and a cap above 32
  // bits counts as 2^32 - 1, so (2^32 - 1) * 2^31 / 2^30 + 1 = 2^33 - 1 (under 4 * 2^31).
  const uint64_t huge = uint64_t(1) << 40;
  Site s = measuring(1, huge);
  EXPECT_EQ(plan_clock_gap(s.w, at(1 + huge, UINT64_MAX, 100, UINT64_MAX, 0, UINT64_MAX)),
            (uint64_t(1) << 33) - 1);
  EXPECT_EQ(s.w[QUANTA_GAP_PREV_CYCLES], uint64_t(1) << 30);
  EXPECT_EQ(s.w[QUANTA_GAP_PREV_UNITS], uint64_t(1) << 31);
  EXPECT_EQ(quanta::gap_cycle_cap(UINT64_MAX), (uint64_t(1) << 32) - 1);
  EXPECT_EQ(quanta::gap_cycle_cap(kCap), kCap);
}

TEST(ClockGap, YieldTimeIsTheDeadlineMinusTheAim) {
  EXPECT_EQ(quanta::gap_yield_at_tsc(10'000, 300), 9'700u);
  EXPECT_EQ(quanta::gap_yield_at_tsc(200, 300), 0u);
  EXPECT_EQ(quanta::gap_yield_at_tsc(UINT64_MAX, 0), UINT64_MAX);  // outside a task: never
}

TEST(ClockGap, LeadIsAveragedAndCappedUntilTwoSerialMeasurementsInARow) {
  using quanta::next_gap_lead;
  EXPECT_EQ(next_gap_lead(100, 5'000, 5'300, kCap), 200u);   // (100 + 300) / 2
  EXPECT_EQ(next_gap_lead(100, 5'000, 4'000, kCap), 50u);    // a drained read before: 0
  // One long measurement (an interrupt between the reads, say) stops at the threshold ...
  EXPECT_EQ(next_gap_lead(0, 5'000, 8'000, kCap), quanta::kSerialLeadCycles);
  EXPECT_FALSE(quanta::serial_gap_site(quanta::kSerialLeadCycles));
  // ... a second one in a row makes the site serial ...
  const uint64_t serial = next_gap_lead(quanta::kSerialLeadCycles, 5'000, 8'000, kCap);
  EXPECT_EQ(serial, (1024u + 3000u) / 2);
  EXPECT_TRUE(quanta::serial_gap_site(serial));
  // ... which then keeps its lead (its drained reads would measure none).
  EXPECT_EQ(next_gap_lead(serial, 5'000, 5'000, kCap), serial);
  // A measurement counts at most the cycle cap.
  EXPECT_EQ(next_gap_lead(quanta::kSerialLeadCycles, 5'000, 1'000'000, kCap), (1024u + kCap) / 2);
}

TEST(ClockGap, ResumedGapStartsALeadEarlierExceptOnASerialSite) {
  EXPECT_EQ(quanta::resumed_gap_start_tsc(10'000, 300), 9'700u);
  EXPECT_EQ(quanta::resumed_gap_start_tsc(200, 300), 0u);
  EXPECT_EQ(quanta::resumed_gap_start_tsc(10'000, 2'000), 10'000u);
}

TEST(ClockGap, AimMovesByAnEighthOfHowLateTheQuantumEnded) {
  using quanta::next_gap_aim;
  const uint64_t deadline = 100'000, probe = 99'000;
  EXPECT_EQ(next_gap_aim(0, deadline + 800, deadline, probe, kCap), 100u);    // late
  EXPECT_EQ(next_gap_aim(200, deadline - 800, deadline, probe + 1, kCap), 100u);  // early
  EXPECT_EQ(next_gap_aim(50, deadline - 800, deadline, probe + 1, kCap), 0u);  // never below 0
  EXPECT_EQ(next_gap_aim(kCap - 10, deadline + 8'000, deadline, probe, kCap), kCap);  // nor above the cap
}

TEST(ClockGap, AimIgnoresStampsThatDoNotMeasureTheSite) {
  using quanta::next_gap_aim;
  const uint64_t deadline = 100'000, probe = 99'000;
  // Later than the cap: a long preempt-disabled region, or a signal's forced yield.
  EXPECT_EQ(next_gap_aim(300, deadline + kCap, deadline, probe, kCap), 300u);
  EXPECT_EQ(next_gap_aim(300, deadline + kCap - 1, deadline, probe, kCap), 300u + (kCap - 1) / 8);
  EXPECT_EQ(next_gap_aim(300, 1'000'000'000, 0, 999'000'000, kCap), 300u);  // a signal's deadline 0
  // A stamp from before the probe is an older stop: no yield happened.
  EXPECT_EQ(next_gap_aim(300, probe - 1, deadline, probe, kCap), 300u);
}

TEST(ClockGap, OutsideATaskNeverYieldsAndGrowsToTheCaps) {
  Site s(10);
  EXPECT_EQ(quanta_clock_gap(s.w, 10, 25, 0, kCap), 10u);  // speed unknown
  EXPECT_NE(s.w[QUANTA_GAP_START], 0u);
  // The deadline is "never", so the whole cycle cap is left: with it at 2^32 - 1 and the
  // measured cycles at most 2^30, the gap is at least 40 units by the clock, whatever the
  // clock says, so the caps decide: 4 x 10, then max_gap 25.
  EXPECT_EQ(quanta_clock_gap(s.w, 10, 25, 0, UINT64_MAX), 25u);
  EXPECT_EQ(s.w[QUANTA_GAP_AIM], 0u);  // no yield, nothing learnt
}

// The pass stores only START = 0 at function entry: whatever the frame held in the other
// words (here a lead that would make the site serial, an aim, a speed) must not count.
TEST(ClockGap, AFreshSiteIgnoresWhatItsOtherWordsHeld) {
  uint64_t w[QUANTA_GAP_WORDS];
  for (uint64_t& x : w) x = 50'000;
  w[QUANTA_GAP_START] = 0;
  EXPECT_EQ(quanta_clock_gap(w, 10, 25, 0, kCap), 10u);  // the static gap: speed unknown
  EXPECT_NE(w[QUANTA_GAP_START], 0u);
  EXPECT_EQ(w[QUANTA_GAP_LENGTH], 10u);
  EXPECT_EQ(w[QUANTA_GAP_PREV_UNITS], 0u);
  EXPECT_EQ(w[QUANTA_GAP_LEAD], 0u);
  EXPECT_EQ(w[QUANTA_GAP_AIM], 0u);
  // A site that is not fresh keeps its words: the next call measures the gap just ended.
  w[QUANTA_GAP_AIM] = 77;
  EXPECT_GE(quanta_clock_gap(w, 10, 25, 0, kCap), 1u);
  EXPECT_EQ(w[QUANTA_GAP_AIM], 77u);
}

struct GapTask {
  Site site{10};
  std::vector<uint64_t> gaps;
};

// Five probes of one site; launched past its deadline, each yields.
void probe_five_times(void* raw) {
  auto& t = *static_cast<GapTask*>(raw);
  for (int i = 0; i < 5; ++i) t.gaps.push_back(quanta_clock_gap(t.site.w, 10, 640, 0, kCap));
}

TEST(ClockGap, PastTheDeadlineEveryCallYieldsAndTheGapStaysInRange) {
  GapTask t;
  EXPECT_EQ(quanta::testing::yields_running_past_deadline(&probe_five_times, &t), 5u);
  ASSERT_EQ(t.gaps.size(), 5u);
  EXPECT_EQ(t.gaps[0], 10u);  // the first gap's speed is unknown
  for (uint64_t g : t.gaps) {
    EXPECT_GE(g, 1u);
    EXPECT_LE(g, 640u);
  }
  EXPECT_LE(t.site.w[QUANTA_GAP_AIM], kCap);
  EXPECT_LE(t.site.w[QUANTA_GAP_LEAD], kCap);
}

}  // namespace
