// An overflowing task stack must fault on its guard page, not run into the next stack.
// The overflow happens in a forked child (a gtest death test).
#include <gtest/gtest.h>

#include <csignal>

#include "quanta/fn.h"

namespace {

int recurse(int depth) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(depth);
  return depth > 1'000'000 ? frame[0] : recurse(depth + 1) + frame[0];
}

void overflow_body(void*) { recurse(0); }

TEST(StackGuardDeathTest, OverflowFaultsOnTheGuardPage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
#if defined(QUANTA_ASAN)
  // ASan owns SIGSEGV and reports the overflow itself.
  EXPECT_DEATH(quanta_fn_launch(&overflow_body, nullptr, 0, 32 * 1024), "stack-overflow");
#else
  EXPECT_EXIT(quanta_fn_launch(&overflow_body, nullptr, 0, 32 * 1024), testing::KilledBySignal(SIGSEGV),
              "task stack overflow");
#endif
}

}  // namespace
