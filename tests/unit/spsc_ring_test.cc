#include "runtime/spsc_ring.h"

#include <gtest/gtest.h>

#include <thread>

namespace quanta {
namespace {

TEST(SpscRing, FifoOrderAndFullEmpty) {
  SpscRing<int> ring(3);  // rounded up to 4
  EXPECT_EQ(ring.capacity(), 4u);
  int out = 0;
  EXPECT_FALSE(ring.try_pop(out));
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(ring.try_push(i));
  EXPECT_FALSE(ring.try_push(99));
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(ring.try_pop(out));
    EXPECT_EQ(out, i);
  }
  EXPECT_FALSE(ring.try_pop(out));
  // Wraps around the end of the slots.
  for (int round = 0; round < 10; ++round) {
    EXPECT_TRUE(ring.try_push(round));
    ASSERT_TRUE(ring.try_pop(out));
    EXPECT_EQ(out, round);
  }
}

TEST(SpscRing, TwoThreadsLoseAndReorderNothing) {
  SpscRing<uint64_t> ring(64);
  constexpr uint64_t kCount = 2'000'000;
  uint64_t received = 0;
  bool in_order = true;
  std::thread consumer([&] {
    uint64_t item;
    while (received < kCount) {
      if (ring.try_pop(item)) {
        in_order = in_order && item == received;
        ++received;
      }
    }
  });
  for (uint64_t i = 0; i < kCount;) {
    if (ring.try_push(i)) ++i;
  }
  consumer.join();
  EXPECT_EQ(received, kCount);
  EXPECT_TRUE(in_order);
}

}  // namespace
}  // namespace quanta
