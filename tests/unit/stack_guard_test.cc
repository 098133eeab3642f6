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

// One frame larger than the whole stack: without stack-clash protection its first write
// lands below the guard page (in whatever is mapped there: another task's stack); this file
// is compiled with -fstack-clash-protection, as quanta-clang compiles every app, so the
// frame's pages are touched in order and the guard page faults first.
volatile int g_index = 5;  // unknown to the compiler: the whole array must exist

[[gnu::noinline]] int large_frame(int index) {
  volatile char frame[72 * 1024];
  frame[index] = 1;
  return frame[index];
}

void large_frame_body(void*) { large_frame(g_index); }

TEST(StackGuardDeathTest, AFrameLargerThanTheGuardStillFaultsOnIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
#if defined(QUANTA_ASAN)
  EXPECT_DEATH(quanta_fn_launch(&large_frame_body, nullptr, 0, 64 * 1024), "stack-overflow");
#else
  EXPECT_EXIT(quanta_fn_launch(&large_frame_body, nullptr, 0, 64 * 1024), testing::KilledBySignal(SIGSEGV),
              "task stack overflow");
#endif
}

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
