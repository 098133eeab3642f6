// Rates that move over a run (io/rate_profile.h): parsing, the time rescaling of gaps,
// and schedules that follow it.
#include "io/rate_profile.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "io/schedule.h"
#include "io/workload.h"

namespace quanta {
namespace {

TEST(RateProfile, ConstantLeavesEveryGapAsItIs) {
  const RateProfile p = RateProfile::parse("constant");
  EXPECT_TRUE(p.constant());
  EXPECT_DOUBLE_EQ(p.advance(123.0, 10.0), 133.0);
  EXPECT_DOUBLE_EQ(p.mean(5), 1.0);
}

TEST(RateProfile, StepsStretchGapsByTheRateOfTheMoment) {
  const RateProfile p = RateProfile::parse("steps:1@0,4@1");  // 4x from 1 s on
  EXPECT_DOUBLE_EQ(p.at(0.5e9), 1.0);
  EXPECT_DOUBLE_EQ(p.at(1e9), 4.0);
  EXPECT_DOUBLE_EQ(p.advance(0, 100), 100) << "before the step, base time is real time";
  EXPECT_DOUBLE_EQ(p.advance(1e9, 100), 1e9 + 25) << "at 4x, a gap takes a quarter";
  // Across the step: 50 ns at 1x, then the other 50 ns of base time at 4x.
  EXPECT_DOUBLE_EQ(p.advance(1e9 - 50, 100), 1e9 + 12.5);
  EXPECT_DOUBLE_EQ(p.mean(2), 2.5);
}

TEST(RateProfile, BurstsRepeat) {
  const RateProfile p = RateProfile::parse("bursts:3:1:0.25");  // 3x for the first 0.25 s of every second
  EXPECT_DOUBLE_EQ(p.at(0.1e9), 3.0);
  EXPECT_DOUBLE_EQ(p.at(0.5e9), 1.0);
  EXPECT_DOUBLE_EQ(p.at(1.1e9), 3.0);
  EXPECT_NEAR(p.mean(2), 1.5, 1e-12);
  EXPECT_DOUBLE_EQ(p.advance(0.9e9, 0.2e9), 1.0e9 + 0.1e9 / 3) << "0.1 s at 1x, then the rest at 3x";
}

TEST(RateProfile, BadSpecsAreRefusedNamingTheProblem) {
  for (const char* bad : {"", "steps:", "steps:1@1", "steps:1@0,2@0", "steps:x@0", "steps:0@0", "steps:1@0,2",
                          "bursts:3:1", "bursts:3:1:1", "bursts:nan:1:0.5", "burst:3:1:0.5", "ramp"}) {
    EXPECT_THROW(RateProfile::parse(bad), std::invalid_argument) << bad;
  }
  try {
    RateProfile::parse("steps:1@0,2@0");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("step times must increase"), std::string::npos) << e.what();
  }
}

TEST(RateProfile, ASteppedScheduleHasTheRateOfEachStep) {
  const Workload w = Workload::parse("fixed:1");
  const RateProfile p = RateProfile::parse("steps:1@0,3@0.5");
  const std::vector<Arrival> schedule = make_poisson_schedule(w, {1e6, 1.0, 7, &p});
  std::size_t first_half = 0;
  for (const Arrival& a : schedule) first_half += a.arrival_ns < 500'000'000 ? 1 : 0;
  const std::size_t second_half = schedule.size() - first_half;
  // 500,000 and 1,500,000 expected; Poisson spreads them by ~0.1-0.15%.
  EXPECT_NEAR(static_cast<double>(first_half), 500'000, 5'000);
  EXPECT_NEAR(static_cast<double>(second_half), 1'500'000, 15'000);
  // A constant profile gives exactly the schedule without one.
  const RateProfile constant;
  const std::vector<Arrival> a = make_poisson_schedule(w, {1e5, 0.1, 7, &constant});
  const std::vector<Arrival> b = make_poisson_schedule(w, {1e5, 0.1, 7});
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i].arrival_ns, b[i].arrival_ns) << i;
}

}  // namespace
}  // namespace quanta
