// Which requests a host stall touched, on the real runtime. The test plays the host: it
// stops the worker thread for 250 ms (a signal whose handler sleeps) while a long request
// runs, and checks each request's mark against the rule (stall_log.h, StallWatch): the long
// request (the stall fell in its life) and a short one that arrived just after the stall
// ended (in its drain, as long again) are touched; a request before the stall and one well
// after the drain are not. Marks and counts only. The stall threshold (150 ms) is far above
// the gaps a host or a busy machine makes (tens of ms at the worst seen here), so only the
// stall the test makes is logged.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <string>

#include "core/tsc.h"
#include "host_stall.h"
#include "quanta/probe.h"
#include "runtime/api_source.h"
#include "runtime/runtime.h"

namespace quanta {
namespace {

constexpr long kStallNs = 250'000'000;
std::atomic<int> g_worker_tid{0};
std::atomic<bool> g_long_running{false};
std::atomic<bool> g_stall_over{false};
std::atomic<uint64_t> g_stall_end_tsc{0};

void sleep_in_handler(int) {
  stall_for_ns(kStallNs);
  g_stall_end_tsc.store(read_tsc());
  g_stall_over.store(true);
}

// Class 0 notes the thread it runs on; class 1 spins (with clock probes) for the cycles
// in its payload.
void note_or_spin(const quanta_request* request, quanta_response*) {
  if (request->class_index == 0) {
    g_worker_tid.store(static_cast<int>(gettid()));
    return;
  }
  uint64_t cycles = 0;
  std::memcpy(&cycles, request->payload, sizeof cycles);
  g_long_running.store(true);
  while (quanta_task_cpu_cycles() < cycles) quanta_probe();
}

class Marks {
 public:
  explicit Marks(ApiSource& source) : source_(source) {}
  // Polls until the completion of `cookie` came (others that come meanwhile are kept).
  const quanta_completion& wait(uint64_t cookie) {
    std::string why;
    while (done_.count(cookie) == 0) {
      quanta_completion c{};
      if (source_.poll_completions(&c, 1, why) == 1) done_[c.cookie] = c;
    }
    return done_[cookie];
  }
  std::size_t order_of(uint64_t cookie) const { return std::distance(done_.begin(), done_.find(cookie)); }

 private:
  ApiSource& source_;
  std::map<uint64_t, quanta_completion> done_;
};

TEST(StallMarking, TheLongRequestAndOneInTheDrainAreTouchedNothingElse) {
  ASSERT_TRUE(stall_on_sigusr2(&sleep_in_handler));
  const quanta_app app = handler_only_app("note-or-spin", &note_or_spin);
  RuntimeConfig config;
  config.workers = 1;  // every request on the stalled worker
  config.class_count = 2;
  config.stall_threshold_us = 150'000;
  Runtime runtime(config, app);
  ApiSource source(16, 8, 8, 2, nullptr, nullptr, runtime.workers());
  runtime.add_source(source);
  runtime.start("");
  Marks marks(source);
  std::string why;
  const char none[1] = {0};
  enum : uint64_t { kBefore = 1, kLong, kAfterStall, kLater };

  ASSERT_EQ(source.submit(none, 1, 0, kBefore, 0, why), QUANTA_OK) << why;
  EXPECT_EQ(marks.wait(kBefore).stall_touched, 0u);
  ASSERT_NE(g_worker_tid.load(), 0);

  // 800 ms of CPU as the handler counts it (the stall counts too): it still runs well
  // after the 250 ms stall and its drain.
  const uint64_t cycles = ns_to_cycles(800e6);
  ASSERT_EQ(source.submit(&cycles, sizeof cycles, 1, kLong, 0, why), QUANTA_OK) << why;
  while (!g_long_running.load()) {
  }
  ASSERT_EQ(syscall(SYS_tgkill, getpid(), g_worker_tid.load(), SIGUSR2), 0);
  while (!g_stall_over.load()) {
  }
  ASSERT_EQ(source.submit(none, 1, 0, kAfterStall, 0, why), QUANTA_OK) << why;
  const quanta_completion after = marks.wait(kAfterStall);
  const quanta_completion long_one = marks.wait(kLong);
  // It arrived after the stall ended: only the drain links it to the stall.
  EXPECT_GT(after.arrival_tsc, g_stall_end_tsc.load());
  EXPECT_LT(after.finish_tsc, long_one.finish_tsc);  // processor sharing: the short one first
  EXPECT_EQ(after.stall_touched, 1u);
  EXPECT_EQ(long_one.stall_touched, 1u);

  // The long request ran past the stall's drain (as long again as the stall).
  ASSERT_GT(long_one.finish_tsc, g_stall_end_tsc.load() + ns_to_cycles(kStallNs));
  ASSERT_EQ(source.submit(none, 1, 0, kLater, 0, why), QUANTA_OK) << why;
  EXPECT_EQ(marks.wait(kLater).stall_touched, 0u);

  const RuntimeResult result = runtime.stop();
  signal(SIGUSR2, SIG_DFL);
  ASSERT_EQ(result.classes.size(), 2u);
  ASSERT_EQ(result.untouched.size(), 2u);
  EXPECT_EQ(result.classes[0].sojourn_ns.count(), 3u);
  EXPECT_EQ(result.untouched[0].sojourn_ns.count(), 2u);
  EXPECT_EQ(result.classes[1].sojourn_ns.count(), 1u);
  EXPECT_EQ(result.untouched[1].sojourn_ns.count(), 0u);
  // The worker logged the stall (as a quantum that ended far past its deadline).
  ASSERT_EQ(result.stalls.size(), 2u);
  EXPECT_GE(result.stalls[1].count, 1u);
  EXPECT_GE(result.stalls[1].largest_ns, 0.99 * kStallNs);
}

}  // namespace
}  // namespace quanta
