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
  EXPECT_EQ(log.intervals().size(), 2u);  // the first two
  EXPECT_EQ(log.largest_cycles(), 24u);
  EXPECT_EQ(log.total_cycles(), 20u + 21 + 22 + 23 + 24);
}

}  // namespace
}  // namespace quanta
