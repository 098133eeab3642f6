// The stall log's bookkeeping: which gaps count, the totals, a full log.
#include "stats/stall_log.h"

#include <gtest/gtest.h>

namespace quanta {
namespace {

TEST(StallLog, KeepsOnlyGapsAboveTheThreshold) {
  StallLog log(100, 8);
  log.observe(1000, 1100);  // exactly the threshold: not a stall
  log.observe(1100, 1050);  // a clock that went back (another CPU's read): ignored
  EXPECT_EQ(log.count(), 0u);
  log.observe(2000, 2101);
  log.observe(5000, 5500);
  EXPECT_EQ(log.count(), 2u);
  EXPECT_EQ(log.total_cycles(), 101u + 500u);
  EXPECT_EQ(log.largest_cycles(), 500u);
  ASSERT_EQ(log.intervals().size(), 2u);
  EXPECT_EQ(log.intervals()[1].start_tsc, 5000u);
  EXPECT_EQ(log.intervals()[1].end_tsc, 5500u);
}

TEST(StallLog, AFullLogStillCountsEveryStall) {
  StallLog log(10, 2);
  for (uint64_t i = 0; i < 5; ++i) log.observe(i * 1000, i * 1000 + 20 + i);
  EXPECT_EQ(log.count(), 5u);
  ASSERT_EQ(log.intervals().size(), 2u);  // the latest two
  EXPECT_EQ(log.intervals()[0].start_tsc, 3000u);
  EXPECT_EQ(log.intervals()[1].start_tsc, 4000u);
  EXPECT_EQ(log.largest_cycles(), 24u);
  EXPECT_EQ(log.total_cycles(), 20u + 21 + 22 + 23 + 24);
}

TEST(StallLog, AnOverlappingIntervalExtendsThePreviousOne) {
  StallLog log(10, 8);
  log.add(100, 200);
  log.add(150, 260);  // the same stall seen again by a later clock read
  log.add(170, 250);  // inside: nothing new
  EXPECT_EQ(log.count(), 1u);
  EXPECT_EQ(log.total_cycles(), 160u);
  EXPECT_EQ(log.largest_cycles(), 160u);
  ASSERT_EQ(log.intervals().size(), 1u);
  EXPECT_EQ(log.intervals()[0].end_tsc, 260u);
  log.add(300, 320);
  EXPECT_EQ(log.count(), 2u);
}

TEST(StallLog, TouchesAStallOrItsDrainOverlappingTheWindow) {
  StallLog log(10, 8);
  log.add(100, 200);
  log.add(500, 600);
  // The stall alone (no drain).
  EXPECT_FALSE(log.touches(0, 99, 0.0));
  EXPECT_TRUE(log.touches(0, 100, 0.0));     // the window ends where the stall starts
  EXPECT_TRUE(log.touches(150, 160, 0.0));   // inside one
  EXPECT_TRUE(log.touches(200, 300, 0.0));   // starts where it ends
  EXPECT_FALSE(log.touches(201, 499, 0.0));  // between the two
  EXPECT_FALSE(log.touches(601, 700, 0.0));
  // With a drain as long as each stall: [100, 300] and [500, 700].
  EXPECT_TRUE(log.touches(250, 260, 1.0));
  EXPECT_TRUE(log.touches(300, 400, 1.0));
  EXPECT_FALSE(log.touches(301, 499, 1.0));
  EXPECT_TRUE(log.touches(650, 900, 1.0));
  EXPECT_FALSE(log.touches(701, 900, 1.0));
}

TEST(StallLog, ALongOldStallsDrainIsFoundBehindShortNewerOnes) {
  StallLog log(10, 8);
  log.add(1000, 5000);  // drains until 9000
  log.add(6000, 6020);
  log.add(7000, 7020);
  EXPECT_TRUE(log.touches(8000, 8100, 1.0));
  EXPECT_FALSE(log.touches(9001, 9100, 1.0));
}

TEST(StallLog, AWrappedRingJudgesOnTheLatestIntervals) {
  StallLog log(10, 2);
  for (uint64_t i = 1; i <= 4; ++i) log.add(i * 100, i * 100 + 20);
  EXPECT_TRUE(log.touches(400, 410, 0.0));
  EXPECT_TRUE(log.touches(300, 310, 0.0));
  EXPECT_FALSE(log.touches(100, 110, 0.0));  // overwritten: no longer known
}

TEST(StallWatch, AnyWatchedCpuCountsAndTheDrainIsAsLongAsTheStall) {
  StallLog dispatcher(10, 8), worker(10, 8);
  StallWatch watch;
  watch.watch(&dispatcher);
  watch.watch(&worker);
  dispatcher.add(1000, 2000);  // drains until 3000
  worker.add(5000, 5100);      // drains until 5200
  EXPECT_TRUE(watch.touched(2500, 2600));   // arrived after the stall, in its drain
  EXPECT_FALSE(watch.touched(2500, 2600, 0.0));
  EXPECT_FALSE(watch.touched(3100, 4900));  // between the two
  EXPECT_TRUE(watch.touched(4900, 5050));   // the other CPU's stall, during its life
  EXPECT_FALSE(watch.touched(5300, 6000));
}

}  // namespace
}  // namespace quanta
