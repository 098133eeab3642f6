// The request pool and the many-producer queue: every record or item handed out comes
// back exactly once, from any thread, and nothing is allocated per request.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "runtime/mpmc_queue.h"
#include "runtime/request_pool.h"

namespace quanta {
namespace {

TEST(RequestPool, HandsOutEachRecordOnceAndReusesTheLastReleased) {
  RequestPool pool(3, 16, 32);
  std::set<Request*> out;
  for (int i = 0; i < 3; ++i) {
    Request* r = pool.acquire();
    ASSERT_NE(r, nullptr);
    EXPECT_TRUE(out.insert(r).second);
    EXPECT_EQ(r->payload_capacity, 16u);
    EXPECT_EQ(r->response_capacity, 32u);
    r->payload[15] = std::byte{1};  // the buffers are really there
    r->response[31] = std::byte{2};
  }
  EXPECT_EQ(pool.acquire(), nullptr);
  EXPECT_EQ(pool.in_use(), 3u);
  Request* last = *out.begin();
  last->id = 77;
  pool.release(*last);
  Request* again = pool.acquire();
  EXPECT_EQ(again, last);          // a stack: the most recently released comes back first
  EXPECT_EQ(again->id, 0u);        // cleared
  EXPECT_NE(again->payload, nullptr);
}

TEST(RequestPool, ThreadsAcquiringAndReleasingLoseNothing) {
  RequestPool pool(64, 8, 8);
  constexpr int kThreads = 3, kRounds = 20000;
  std::atomic<uint64_t> held_twice{0};
  std::vector<std::atomic<int>> holders(64);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRounds; ++i) {
        Request* r = pool.acquire();
        if (r == nullptr) continue;
        if (holders[r->pool_index].fetch_add(1) != 0) held_twice.fetch_add(1);
        holders[r->pool_index].fetch_sub(1);
        pool.release(*r);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(held_twice.load(), 0u);
  EXPECT_EQ(pool.in_use(), 0u);
  std::set<Request*> all;
  for (int i = 0; i < 64; ++i) all.insert(pool.acquire());
  EXPECT_EQ(all.size(), 64u);
  EXPECT_EQ(all.count(nullptr), 0u);
}

TEST(MpmcQueue, ManyProducersOneConsumerEveryItemOnce) {
  MpmcQueue<uint64_t> queue(256);
  EXPECT_TRUE(queue.empty_when_quiet());
  constexpr int kProducers = 3;
  constexpr uint64_t kEach = 20000;
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (uint64_t i = 0; i < kEach; ++i) {
        while (!queue.try_push(static_cast<uint64_t>(p) * kEach + i)) std::this_thread::yield();
      }
    });
  }
  std::vector<uint64_t> last(kProducers, 0);
  std::vector<bool> seen_any(kProducers, false);
  uint64_t got = 0, sum = 0;
  bool in_order = true;
  while (got < kProducers * kEach) {
    uint64_t v = 0;
    if (!queue.try_pop(v)) continue;
    const auto p = static_cast<std::size_t>(v / kEach);
    if (seen_any[p] && v <= last[p]) in_order = false;  // each producer's items stay in order
    seen_any[p] = true;
    last[p] = v;
    sum += v;
    ++got;
  }
  for (auto& t : producers) t.join();
  const uint64_t n = kProducers * kEach;
  EXPECT_EQ(sum, n * (n - 1) / 2);
  EXPECT_TRUE(in_order);
  EXPECT_TRUE(queue.empty_when_quiet());
  uint64_t v;
  EXPECT_FALSE(queue.try_pop(v));
}

TEST(MpmcQueue, RefusesWhenFull) {
  MpmcQueue<int> queue(3);  // rounded up to 4
  EXPECT_EQ(queue.capacity(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(queue.try_push(i));
  EXPECT_FALSE(queue.try_push(9));
  int v = -1;
  EXPECT_TRUE(queue.try_pop(v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(queue.try_push(4));
}

}  // namespace
}  // namespace quanta
