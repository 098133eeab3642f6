// The pieces of --idle block: the workers' parking spot, the dispatcher's doorbell, and its
// sleep on its sources. A lost wake-up shows as a test that never ends (ctest's timeout).
#include <poll.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "core/idle_backoff.h"
#include "core/parking_spot.h"
#include "core/tsc.h"
#include "runtime/dispatcher_sleep.h"
#include "runtime/doorbell.h"
#include "runtime/mpmc_queue.h"
#include "runtime/spsc_ring.h"

namespace quanta {
namespace {

bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1;
}

TEST(IdleMode, ParsesItsThreeNamesOnly) {
  IdleMode m = IdleMode::kSpin;
  EXPECT_TRUE(parse_idle_mode("block", m));
  EXPECT_EQ(m, IdleMode::kBlock);
  EXPECT_TRUE(parse_idle_mode("yield", m));
  EXPECT_EQ(m, IdleMode::kYield);
  EXPECT_TRUE(parse_idle_mode("spin", m));
  EXPECT_EQ(m, IdleMode::kSpin);
  EXPECT_FALSE(parse_idle_mode("Block", m));
  EXPECT_FALSE(parse_idle_mode("", m));
  EXPECT_EQ(m, IdleMode::kSpin);  // untouched by a refusal
  EXPECT_STREQ(idle_mode_name(IdleMode::kBlock), "block");
}

TEST(IdleBackoff, OnlyBlockModeAsksToSleepAndOnlyAfterItsSpell) {
  const uint64_t spell = ns_to_cycles(IdleBackoff::kSpinBeforeYieldNs);
  IdleBackoff spin(IdleMode::kSpin), block(IdleMode::kBlock);
  EXPECT_FALSE(spin.pause(1000));
  EXPECT_FALSE(spin.pause(1000 + 100 * spell));
  EXPECT_FALSE(block.pause(1000));               // the spell starts here
  EXPECT_FALSE(block.pause(1000 + spell / 2));
  EXPECT_TRUE(block.pause(1000 + spell));
  block.busy();                                  // work: a new spell
  EXPECT_FALSE(block.pause(5000 + spell));
}

// A consumer that parks whenever its ring is empty receives every item of a producer that
// wakes it after each push; the parks it announced and found work for are withdrawn.
TEST(ParkingSpot, ParkingConsumerMissesNoItem) {
  SpscRing<uint64_t> ring(8);
  ParkingSpot spot;
  constexpr uint64_t kCount = 200000;
  std::atomic<uint64_t> sleeps{0};
  uint64_t received = 0;
  bool in_order = true;
  std::thread consumer([&] {
    uint64_t item = 0;
    while (received < kCount) {
      if (ring.try_pop(item)) {
        in_order = in_order && item == received;
        ++received;
        continue;
      }
      spot.announce();
      if (!ring.looks_empty()) {
        spot.withdraw();
      } else {
        spot.sleep();
        sleeps.fetch_add(1, std::memory_order_relaxed);
      }
    }
  });
  for (uint64_t i = 0; i < kCount; ++i) {
    while (!ring.try_push(i)) spot.wake();
    spot.wake();
    // Now and then let the consumer run dry, so that it really sleeps.
    if (i % 1000 == 0) std::this_thread::yield();
  }
  consumer.join();
  EXPECT_EQ(received, kCount);
  EXPECT_TRUE(in_order);
}

TEST(ParkingSpot, WakeBeforeSleepMakesTheSleepReturn) {
  ParkingSpot spot;
  spot.announce();
  spot.wake();   // takes the announcement back
  spot.sleep();  // returns at once: the futex word is no longer 1
  spot.wake();   // nobody parked: no-op
  SUCCEED();
}

TEST(Doorbell, WritesOnlyWhileArmedAndDisarmDrains) {
  Doorbell bell;
  bell.ring();
  EXPECT_FALSE(readable(bell.fd())) << "nobody sleeps: a ring costs no write";
  bell.arm();
  bell.ring();
  EXPECT_TRUE(readable(bell.fd()));
  bell.ring();  // the first ring disarmed it
  bell.disarm();
  EXPECT_FALSE(readable(bell.fd()));
  bell.ring_always();
  EXPECT_TRUE(readable(bell.fd()));
  bell.disarm();
  EXPECT_FALSE(readable(bell.fd()));
}

// A source for DispatcherSleep: a queue that another thread pushes to and rings for.
class QueueSource final : public Source {
 public:
  uint32_t poll(uint64_t, Request** out, uint32_t max) override {
    uint32_t n = 0;
    int item = 0;
    while (n < max && queue.try_pop(item)) out[n++] = nullptr, ++taken;
    return n;
  }
  bool exhausted() const override { return done.load(); }
  void close() override { done.store(true); }
  bool prepare_idle_wait(IdleWait& wait) override {
    ++prepared;
    if (refuse) return false;
    if (!wait.add_fd(bell.fd())) return false;
    if (due != IdleWait::kNever) wait.due_tsc = due;
    bell.arm();
    return queue.looks_empty();
  }
  void end_idle_wait() override {
    ++ended;
    bell.disarm();
  }
  // Waits while the queue is full (a slow consumer, e.g. under ThreadSanitizer): an item
  // dropped here would leave the test waiting for it for ever.
  void push(int v) {
    while (!queue.try_push(v)) std::this_thread::yield();
    bell.ring();
  }

  MpmcQueue<int> queue{1024};
  Doorbell bell;
  std::atomic<bool> done{false};
  bool refuse = false;
  uint64_t due = IdleWait::kNever;
  int prepared = 0, ended = 0;
  uint64_t taken = 0;
};

TEST(DispatcherSleep, ASourceThatCannotBeSleptOnKeepsItAwake) {
  Doorbell wake;
  QueueSource a, b;
  b.refuse = true;
  Source* sources[] = {&a, &b};
  DispatcherSleep sleep(wake, 2);
  EXPECT_EQ(sleep.try_sleep(sources), DispatcherSleep::Outcome::kCannot);
  EXPECT_EQ(a.ended, 1) << "a prepared source is always ended";
  EXPECT_EQ(b.ended, 0);
  EXPECT_EQ(sleep.sleeps(), 0u);
}

TEST(DispatcherSleep, QueuedWorkOrAnExhaustedSourceDecideAsTheyShould) {
  Doorbell wake;
  QueueSource a, gone;
  gone.refuse = true;
  gone.close();  // exhausted: not asked
  Source* sources[] = {&a, &gone};
  DispatcherSleep sleep(wake, 2);
  a.queue.try_push(1);  // work already there: the source says not to sleep
  EXPECT_EQ(sleep.try_sleep(sources), DispatcherSleep::Outcome::kCannot);
  EXPECT_EQ(gone.prepared, 0);
}

// One source whose next arrival is due `in_ns` from now.
struct DueSource {
  explicit DueSource(double in_ns) { source.due = read_tsc() + ns_to_cycles(in_ns); }
  Doorbell wake;
  QueueSource source;
  Source* sources[1] = {&source};
  DispatcherSleep sleep{wake, 1};
};

TEST(DispatcherSleep, AnArrivalDueSoonKeepsItSpinning) {
  DueSource due(1000);
  EXPECT_EQ(due.sleep.try_sleep(due.sources), DispatcherSleep::Outcome::kSoon);
  EXPECT_EQ(due.sleep.sleeps(), 0u);
}

TEST(DispatcherSleep, SleepsUntilTheDueTime) {
  // Far enough that no host stall between here and the call makes it "soon"; it wakes
  // 50 us early.
  DueSource due(300e6);
  EXPECT_EQ(due.sleep.try_sleep(due.sources), DispatcherSleep::Outcome::kSlept);
  EXPECT_EQ(due.sleep.sleeps(), 1u);
  EXPECT_EQ(due.source.ended, 1);
}

// Every push from another thread ends a sleep: the consumer sees every item, however the
// pushes fall against its sleeps.
TEST(DispatcherSleep, EveryPushWakesTheSleeper) {
  Doorbell wake;
  QueueSource a;
  Source* sources[] = {&a};
  DispatcherSleep sleep(wake, 1);
  constexpr int kCount = 20000;
  std::thread producer([&] {
    for (int i = 0; i < kCount; ++i) {
      a.push(i);
      if (i % 64 == 0) usleep(50);  // let it fall asleep now and then
    }
  });
  Request* batch[32];
  while (a.taken < kCount) {
    if (a.poll(0, batch, 32) == 0) sleep.try_sleep(sources);
  }
  producer.join();
  EXPECT_EQ(a.taken, static_cast<uint64_t>(kCount));
  EXPECT_GT(sleep.sleeps(), 0u);
}

TEST(DispatcherSleep, TheRuntimeBellEndsASleepWithNoSourceActivity) {
  Doorbell wake;
  QueueSource a;
  Source* sources[] = {&a};
  DispatcherSleep sleep(wake, 1);
  std::thread stopper([&] {
    usleep(1000);
    a.close();
    wake.ring_always();
  });
  while (!a.exhausted()) sleep.try_sleep(sources);
  stopper.join();
  SUCCEED();
}

}  // namespace
}  // namespace quanta
