#include "core/context.h"

#include <gtest/gtest.h>

#include <string>

#include "core/stack_pool.h"

namespace quanta {
namespace {

struct PingPong {
  Context main;
  Context task;
  std::string trace;
};

void ping_pong_body(void* raw) {
  auto& p = *static_cast<PingPong*>(raw);
  for (int i = 0; i < 3; ++i) {
    p.trace += 't';
    Context::switch_to(p.task, p.main);
  }
  p.trace += 'e';
  Context::switch_final(p.task, p.main);
}

TEST(Context, SwitchesBackAndForthInOrder) {
  StackPool pool(1, 64 * 1024);
  PingPong p;
  p.task.prepare(pool.acquire(), &ping_pong_body, &p);
  for (int i = 0; i < 4; ++i) {
    p.trace += 'm';
    Context::switch_to(p.main, p.task);
  }
  EXPECT_EQ(p.trace, "mtmtmtme");
}

// Locals on the task's stack survive a round trip through the scheduler.
void keeps_locals_body(void* raw) {
  auto& p = *static_cast<PingPong*>(raw);
  volatile uint64_t sum = 0;
  for (uint64_t i = 1; i <= 100; ++i) {
    sum = sum + i;
    Context::switch_to(p.task, p.main);
  }
  p.trace = std::to_string(sum);
  Context::switch_final(p.task, p.main);
}

TEST(Context, PreservesTaskStateAcrossSwitches) {
  StackPool pool(1, 64 * 1024);
  PingPong p;
  p.task.prepare(pool.acquire(), &keeps_locals_body, &p);
  for (int i = 0; i < 101; ++i) Context::switch_to(p.main, p.task);
  EXPECT_EQ(p.trace, "5050");
}

TEST(StackPool, HandsOutDistinctStacksAndTakesThemBack) {
  StackPool pool(3, 20000);
  EXPECT_EQ(pool.stack_bytes() % 4096, 0u);
  StackRegion a = pool.acquire(), b = pool.acquire(), c = pool.acquire();
  EXPECT_EQ(pool.acquire().base, nullptr);  // exhausted: empty region, no allocation
  EXPECT_NE(a.base, b.base);
  EXPECT_NE(b.base, c.base);
  pool.release(b);
  EXPECT_EQ(pool.available(), 1u);
  EXPECT_EQ(pool.acquire().base, b.base);
}

}  // namespace
}  // namespace quanta
