// With every preemption mechanism, a long request is preempted so that a short request
// queued behind it on the same worker finishes first; without preemption it never does.
// The handler is the synthetic app's, compiled by the pass (no probe written by hand);
// a wrapper records the order in which requests finish. Arrival times and classes come
// from the same seeded schedule the run replays, so the test knows which short request
// arrived while which long one was running. Ordering and counts only, no time limits.
#include <gtest/gtest.h>

#include <atomic>

#include "test_apps.h"
#include <cstdio>
#include <vector>

#include "io/schedule.h"
#include "experiment/in_process_run.h"
#include "spin_app.h"

extern "C" {
// tests/integration/polled_handler.c, compiled by the pass in flag mode.
int polled_app_setup(const char* config);
void polled_spin_handle(const quanta_request* request, quanta_response* response);
void polled_words_handle(const quanta_request* request, quanta_response* response);
}

namespace quanta {
namespace {

constexpr const char* kWorkload = "bimodal:90:2:10000";  // 2 us and 10 ms
constexpr double kRateRps = 300;                         // load ~0.3 on one worker
constexpr double kDurationS = 0.5;
constexpr uint64_t kSeed = 11;
// A short request arriving this soon after a long one finds it with >= 7 ms still to run:
// time for the signal monitor too, which runs on the dispatcher's CPU and can lose it to
// other processes for a few ms.
constexpr uint64_t kCloseNs = 3'000'000;
constexpr std::size_t kMaxRequests = 4096;

const quanta_app* g_inner = nullptr;
std::atomic<uint64_t> g_finished{0};
uint64_t g_finish_order[kMaxRequests];  // written by the one worker, read after the run

void ordered_handle(const quanta_request* request, quanta_response* response) {
  g_inner->handle_request(request, response);
  if (request->id < kMaxRequests) g_finish_order[request->id] = g_finished.fetch_add(1) + 1;
}

const quanta_app kOrderedApp = testing::spin_payload_app("ordered-spin", &ordered_handle);

struct PairCounts {
  unsigned close_pairs = 0;        // (long, short) with the short arriving within kCloseNs
  unsigned short_finished_first = 0;
  uint64_t quanta = 0;             // quanta run, all requests together
  uint64_t completed = 0;
};

// `inner` handles the requests; by default the synthetic app built for `preempt`.
PairCounts run_and_count(const std::string& preempt, double quantum_us, const std::string& dispatch = "jsq-msq",
                         const quanta_app* inner = nullptr) {
  RunConfig c;
  c.dispatch_policy = dispatch;
  c.workload = kWorkload;
  c.rate_rps = kRateRps;
  c.workers = 1;  // both requests of a pair share the worker
  c.quantum_us = quantum_us;
  c.preempt = preempt;
  c.duration_s = kDurationS;
  c.warmup_frac = 0;
  c.seed = kSeed;
  g_inner = inner ? inner : quanta_spin_app_for(preempt.c_str());
  g_finished = 0;
  std::fill(std::begin(g_finish_order), std::end(g_finish_order), 0);
  const Workload workload = Workload::parse(kWorkload);
  const RunResult r = run_in_process(c, workload, kOrderedApp);
  EXPECT_EQ(r.completed, r.dispatch.generated) << preempt;
  EXPECT_EQ(r.dispatch.dropped, 0u) << preempt;
  EXPECT_EQ(r.app_errors, 0u) << preempt;

  const std::vector<Arrival> schedule = make_poisson_schedule(workload, {kRateRps, kDurationS, kSeed});
  EXPECT_EQ(schedule.size(), r.dispatch.generated) << "the test must see the run's own schedule";
  EXPECT_LT(schedule.size(), kMaxRequests);
  PairCounts counts;
  counts.quanta = r.quanta;
  counts.completed = r.completed;
  for (std::size_t l = 0; l + 1 < schedule.size(); ++l) {
    if (schedule[l].class_index != 1) continue;
    const std::size_t s = l + 1;  // the very next arrival, if short and soon
    if (schedule[s].class_index != 0 || schedule[s].arrival_ns - schedule[l].arrival_ns > kCloseNs) continue;
    ++counts.close_pairs;
    if (g_finish_order[s] < g_finish_order[l]) ++counts.short_finished_first;
  }
  return counts;
}

class PreemptOrder : public ::testing::TestWithParam<std::pair<const char*, double>> {};

TEST_P(PreemptOrder, ShortRequestBehindALongOneFinishesFirst) {
  const auto [preempt, quantum_us] = GetParam();
  const PairCounts counts = run_and_count(preempt, quantum_us);
  ASSERT_GE(counts.close_pairs, 3u) << "the seeded schedule has such pairs";
  std::printf("%s: the short request finished first in %u of %u pairs\n", preempt, counts.short_finished_first,
              counts.close_pairs);
  // A 10 ms request is preempted every quantum; the short one then runs in the next
  // quantum. A host stall of several ms can let a long request's clock run out early and
  // finish before its short neighbour: allow a minority of such pairs.
  EXPECT_GT(counts.short_finished_first * 2, counts.close_pairs)
      << preempt << ": " << counts.short_finished_first << " of " << counts.close_pairs;
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, PreemptOrder,
                         ::testing::Values(std::pair{"clock", 2.0}, std::pair{"flag", 2.0},
                                           std::pair{"signal", 50.0}, std::pair{"hybrid", 2.0}),
                         [](const auto& info) { return std::string(info.param.first); });

// The same with the centralized policies: the preempted long task goes back to the
// dispatcher's queue behind the short one.
TEST(PreemptOrder, CentralQueueLetsTheShortRequestFinishFirst) {
  for (const char* dispatch : {"central", "jbsq:2"}) {
    const PairCounts counts = run_and_count("clock", 2.0, dispatch);
    ASSERT_GE(counts.close_pairs, 3u);
    EXPECT_GT(counts.short_finished_first * 2, counts.close_pairs)
        << dispatch << ": " << counts.short_finished_first << " of " << counts.close_pairs;
  }
}

// A call-free scanner loop compiled in flag mode reads the flag on every iteration through
// a pointer kept in a register (the pass's polled placement). The monitor's flag must stop
// it, and after each switch the loop must go on reading the right worker's flag.
TEST(PreemptOrder, FlagStopsAPolledLoopWithoutCalls) {
  ASSERT_EQ(polled_app_setup(nullptr), 0);
  const quanta_app polled = testing::spin_payload_app("polled-scan", &polled_spin_handle);
  const PairCounts counts = run_and_count("flag", 2.0, "jsq-msq", &polled);
  ASSERT_GE(counts.close_pairs, 3u);
  // Each 10 ms request spans thousands of 2 us quanta: preempted at least 10 times apiece.
  EXPECT_GE(counts.quanta, counts.completed + 10 * counts.close_pairs);
  EXPECT_GT(counts.short_finished_first * 2, counts.close_pairs)
      << counts.short_finished_first << " of " << counts.close_pairs;
}

// A word scanner in flag mode: the inner loop, directly inside a polled loop, counts a
// fixed stride from each entry and reads no flag on its hot path. A long request is one
// 10 M-byte word, so only that loop's probe (once per stride) can see the monitor's flag.
TEST(PreemptOrder, FlagStopsAStridedScanInsideAPolledLoop) {
  ASSERT_EQ(polled_app_setup(nullptr), 0);
  const quanta_app words = testing::spin_payload_app("polled-words", &polled_words_handle);
  const PairCounts counts = run_and_count("flag", 2.0, "jsq-msq", &words);
  ASSERT_GE(counts.close_pairs, 3u);
  EXPECT_GE(counts.quanta, counts.completed + 10 * counts.close_pairs);
  EXPECT_GT(counts.short_finished_first * 2, counts.close_pairs)
      << counts.short_finished_first << " of " << counts.close_pairs;
}

TEST(PreemptOrder, WithoutPreemptionTheLongRequestAlwaysFinishesFirst) {
  const PairCounts counts = run_and_count("none", 2.0);
  ASSERT_GE(counts.close_pairs, 3u);
  EXPECT_EQ(counts.short_finished_first, 0u);
}

}  // namespace
}  // namespace quanta
