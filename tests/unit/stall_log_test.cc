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

TEST(StallLog, TouchesAnyIntervalOverlappingTheWindow) {
  StallLog log(10, 8);
  log.add(100, 200);
  log.add(500, 600);
  EXPECT_FALSE(log.touches(0, 99));
  EXPECT_TRUE(log.touches(0, 100));     // the window ends where the stall starts
  EXPECT_TRUE(log.touches(150, 160));   // inside one
  EXPECT_TRUE(log.touches(200, 300));   // starts where it ends
  EXPECT_FALSE(log.touches(201, 499));  // between the two
  EXPECT_TRUE(log.touches(0, 1000));
  EXPECT_FALSE(log.touches(601, 700));
}

TEST(StallLog, AWrappedRingJudgesOnTheLatestIntervals) {
  StallLog log(10, 2);
  for (uint64_t i = 1; i <= 4; ++i) log.add(i * 100, i * 100 + 20);
  EXPECT_TRUE(log.touches(400, 410));
  EXPECT_TRUE(log.touches(300, 310));
  EXPECT_FALSE(log.touches(100, 110));  // overwritten: no longer known
}

TEST(StallWatch, TheWindowStartsAtTheBusyPeriodsFirstArrival) {
  StallLog dispatcher(10, 8), worker(10, 8);
  StallWatch watch;
  watch.watch(&dispatcher);
  watch.watch(&worker);
  dispatcher.add(1000, 2000);
  worker.add(5000, 5100);
  // Arrived after the dispatcher's stall, in a busy period that began during it: touched.
  EXPECT_TRUE(watch.touched(2500, 1500, 3000));
  // The same request with no busy period known: only its own life counts.
  EXPECT_FALSE(watch.touched(2500, 0, 3000));
  // A busy period that began after the stall: untouched.
  EXPECT_FALSE(watch.touched(2500, 2100, 3000));
  // A stall of the other CPU during its life.
  EXPECT_TRUE(watch.touched(4900, 4900, 5050));
  // busy_since after the arrival (not possible, but harmless): the arrival wins.
  EXPECT_TRUE(watch.touched(1900, 2500, 2600));
}

}  // namespace
}  // namespace quanta
