// quanta_tick_gap(): the thread's tick budget refilled from the thread's own adaptive site,
// outside a task (no deadline: the caps decide) and in a task past its deadline (every call
// yields). Counts and caps only: its clock reads are real.
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "quanta/clock_gap.h"
#include "quanta/fn.h"
#include "quanta/probe.h"
#include "past_deadline.h"

namespace {

constexpr uint64_t kCap = 8192;  // the pass's default -quanta-probe-max-cycles

// Each test runs on a thread of its own: the site is the thread's, fresh on a new thread.
template <typename F>
void on_fresh_thread(F f) {
  std::thread t(f);
  t.join();
}

TEST(TickGap, AFreshThreadRefillsWithTheStaticGapLessWhatIsAhead) {
  on_fresh_thread([] {
    EXPECT_EQ(quanta_tick_budget, 0);  // a new thread's first tick reads
    quanta_tick_budget = -3;           // a tick charged 3 ...
    quanta_tick_gap(3, 10, 25, kCap);  // ... for the stretch after it
    EXPECT_EQ(quanta_tick_budget, 10 - 3);
  });
}

TEST(TickGap, OutsideATaskTheGapGrowsToTheCapsAndNeverYields) {
  on_fresh_thread([] {
    quanta_tick_budget = -1;
    quanta_tick_gap(0, 10, 25, UINT64_MAX);
    EXPECT_EQ(quanta_tick_budget, 10);  // speed unknown
    // No deadline: the whole cycle cap is left, so the caps in units decide (4 x 10, then
    // the longest gap, 25), whatever the clock measured.
    quanta_tick_budget = -1;
    quanta_tick_gap(0, 10, 25, UINT64_MAX);
    EXPECT_EQ(quanta_tick_budget, 25);
    quanta_tick_budget = -4;
    quanta_tick_gap(4, 10, 25, UINT64_MAX);
    EXPECT_EQ(quanta_tick_budget, 25 - 4);
  });
}

struct TickTask {
  std::vector<int64_t> budgets;
};

// Five ticks that each find the budget run out; launched past its deadline, each yields.
void tick_five_times(void* raw) {
  auto& t = *static_cast<TickTask*>(raw);
  for (int i = 0; i < 5; ++i) {
    quanta_tick_budget = -2;
    quanta_tick_gap(2, 10, 640, kCap);
    t.budgets.push_back(quanta_tick_budget);
  }
}

TEST(TickGap, PastTheDeadlineEveryRefillYieldsAndRestartsAtTheStaticGap) {
  on_fresh_thread([] {
    TickTask t;
    EXPECT_EQ(quanta::testing::yields_running_past_deadline(&tick_five_times, &t), 5u);
    // After a yield the thread's site measured other work: the first gap is the static one.
    ASSERT_EQ(t.budgets.size(), 5u);
    for (int64_t b : t.budgets) EXPECT_EQ(b, 10 - 2);
  });
}

}  // namespace
