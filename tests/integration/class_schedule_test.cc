// Latency-critical and best-effort classes in the runtime (options.class_schedule, the C
// API; quanta run --class-schedule builds the same config): a queue per class on each
// worker, BE within its budget while LC waits, on idle CPU otherwise unless capped. One
// worker, so the order in which requests finish is the worker's scheduling order. Every
// check is on counts and on the order of completions; the request lengths only make the
// orders differ by a wide margin, and each test has a control that would fail it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "quanta/runtime.h"

namespace {

// Class 0 (LC) and class 1 (BE) requests; the payload says what the handler does.
struct Job {
  uint32_t wait_for_lc_starts;  // spin (probing) until this many LC requests have started
  uint64_t spin_cycles;         // then use this much CPU
};

std::atomic<int> g_lc_started{0};
std::atomic<int> g_be_started{0};

void spin_until(uint64_t cycles) {
  while (quanta_task_cpu_cycles() < cycles) quanta_probe();
}

void handle(const quanta_request* request, quanta_response*) {
  Job job{};
  std::memcpy(&job, request->payload, sizeof job);
  (request->class_index == 0 ? g_lc_started : g_be_started).fetch_add(1);
  while (g_lc_started.load() < static_cast<int>(job.wait_for_lc_starts)) quanta_probe();
  spin_until(quanta_task_cpu_cycles() + job.spin_cycles);
}

quanta_app app() {
  quanta_app a{};
  a.abi_version = QUANTA_APP_ABI_VERSION;
  a.name = "lc-be";
  a.handle_request = handle;
  return a;
}

uint64_t us(double v) { return static_cast<uint64_t>(quanta_tsc_per_us() * v); }

struct Finished {
  std::vector<uint64_t> lc, be;  // finish times, by class
  quanta_run_stats stats{};
  quanta_class_usage usage[2]{};
};

quanta_runtime_options options(const char* schedule, double quantum_us) {
  quanta_runtime_options o;
  quanta_runtime_options_init(&o);
  o.workers = 1;
  o.class_count = 2;
  o.quantum_us = quantum_us;
  o.max_payload_bytes = sizeof(Job);
  o.max_response_bytes = 0;
  o.class_schedule = schedule;
  return o;
}

void submit(quanta_runtime* rt, uint32_t class_index, Job job, uint64_t cookie) {
  ASSERT_EQ(quanta_runtime_submit(rt, &job, sizeof job, class_index, cookie), QUANTA_OK) << quanta_last_error();
}

// Stops (which drains every request) and takes every completion.
Finished stop_and_collect(quanta_runtime* rt, std::size_t requests, bool scheduled) {
  Finished f;
  EXPECT_EQ(quanta_runtime_stop(rt, &f.stats), QUANTA_OK) << quanta_last_error();
  quanta_completion done[16];
  while (f.lc.size() + f.be.size() < requests) {
    const int n = quanta_runtime_poll(rt, done, 16);
    EXPECT_GT(n, 0) << "every request finished before the stop returned";
    if (n <= 0) break;
    for (int i = 0; i < n; ++i) (done[i].class_index == 0 ? f.lc : f.be).push_back(done[i].finish_tsc);
  }
  for (uint32_t c = 0; c < 2 && scheduled; ++c) {
    EXPECT_EQ(quanta_runtime_class_usage(rt, c, &f.usage[c]), QUANTA_OK) << quanta_last_error();
  }
  return f;
}

// A long BE request is running when LC requests arrive. It waits (probing) until every
// LC request has started, then needs half the CPU each LC request needs. Under plain
// round robin it therefore finishes first; as BE under LC it must wait for all of them.
Finished be_running_when_lc_arrives(const char* schedule) {
  constexpr int kLc = 4;
  g_lc_started = 0;
  g_be_started = 0;
  const quanta_app a = app();
  quanta_runtime_options o = options(schedule, 20);
  quanta_runtime* rt = nullptr;
  EXPECT_EQ(quanta_runtime_start(&o, &a, "", &rt), QUANTA_OK) << quanta_last_error();
  if (rt == nullptr) return {};
  submit(rt, 1, Job{kLc, us(1000)}, 100);
  while (g_be_started.load() == 0) {
  }
  for (int i = 0; i < kLc; ++i) submit(rt, 0, Job{0, us(2000)}, static_cast<uint64_t>(i));
  Finished f = stop_and_collect(rt, kLc + 1, schedule != nullptr);
  quanta_runtime_destroy(rt);
  return f;
}

TEST(ClassSchedule, LatencyCriticalRequestsFinishBeforeTheBestEffortOneRunningWhenTheyCame) {
  const Finished f = be_running_when_lc_arrives("lc,be");
  ASSERT_EQ(f.lc.size(), 4u);
  ASSERT_EQ(f.be.size(), 1u);
  for (uint64_t lc : f.lc) EXPECT_LT(lc, f.be[0]) << "an LC request finished after the BE one";
  EXPECT_GT(f.usage[0].quanta, 0u);
  EXPECT_GT(f.usage[1].quanta, 0u) << "BE ran (before the LC requests came, and after)";
  EXPECT_EQ(f.usage[1].budget_ended_quanta, 0u) << "BE has no budget to end its quanta";
  EXPECT_EQ(f.usage[0].quanta + f.usage[1].quanta, f.stats.quanta);
}

TEST(ClassSchedule, WithoutAScheduleTheSameRequestsShareRoundRobinAndBestEffortFinishesFirst) {
  const Finished f = be_running_when_lc_arrives(nullptr);
  ASSERT_EQ(f.lc.size(), 4u);
  ASSERT_EQ(f.be.size(), 1u);
  EXPECT_LT(f.be[0], *std::max_element(f.lc.begin(), f.lc.end())) << "the control of the test above";
}

// Four long LC requests and a shorter BE one, all queued at once. With a budget BE runs its
// runtime in every period although LC work always waits, and is done long before the LC
// requests (each needs over three times its CPU); without one it waits for all of them.
Finished lc_backlog_and_a_short_be(const char* schedule) {
  g_lc_started = 0;
  g_be_started = 0;
  const quanta_app a = app();
  quanta_runtime_options o = options(schedule, 100);
  quanta_runtime* rt = nullptr;
  EXPECT_EQ(quanta_runtime_start(&o, &a, "", &rt), QUANTA_OK) << quanta_last_error();
  if (rt == nullptr) return {};
  for (int i = 0; i < 4; ++i) submit(rt, 0, Job{0, us(20000)}, static_cast<uint64_t>(i));
  submit(rt, 1, Job{0, us(6000)}, 100);
  Finished f = stop_and_collect(rt, 5, true);
  quanta_runtime_destroy(rt);
  return f;
}

TEST(ClassSchedule, ABestEffortBudgetRunsWhileLatencyCriticalWorkWaits) {
  const Finished f = lc_backlog_and_a_short_be("lc,be:1050/10000");
  ASSERT_EQ(f.lc.size(), 4u);
  ASSERT_EQ(f.be.size(), 1u);
  EXPECT_LT(f.be[0], *std::min_element(f.lc.begin(), f.lc.end())) << "BE got no share while LC waited";
  // 6 ms of BE work on 1.05 ms per period spans six periods at least, and 100 us quanta
  // never add up to 1050 exactly: the budget ends one of its quanta in a period unless a
  // quantum overran across that period's last 100 us (a host stall; under ThreadSanitizer,
  // a slow switch). A 2 ms request, two periods, once had no such quantum under TSan.
  EXPECT_GE(f.usage[1].budget_ended_quanta, 1u);
  EXPECT_EQ(f.usage[1].throttled_spells, 0u) << "uncapped";
}

TEST(ClassSchedule, WithoutABudgetBestEffortWaitsForEveryLatencyCriticalRequest) {
  const Finished f = lc_backlog_and_a_short_be("lc,be");
  ASSERT_EQ(f.lc.size(), 4u);
  ASSERT_EQ(f.be.size(), 1u);
  EXPECT_GT(f.be[0], *std::max_element(f.lc.begin(), f.lc.end()));
  EXPECT_EQ(f.usage[1].budget_ended_quanta, 0u);
}

// Only BE work: 4 ms of it on a budget of 0.5 ms per 5 ms. Capped, the worker idles at
// the end of every period's budget (at least twice: even a host stall charged to BE
// cannot make one period's budget cover it all); uncapped, it never does.
Finished be_alone(const char* schedule) {
  g_lc_started = 0;
  const quanta_app a = app();
  quanta_runtime_options o = options(schedule, 100);
  quanta_runtime* rt = nullptr;
  EXPECT_EQ(quanta_runtime_start(&o, &a, "", &rt), QUANTA_OK) << quanta_last_error();
  if (rt == nullptr) return {};
  submit(rt, 1, Job{0, us(2000)}, 1);
  submit(rt, 1, Job{0, us(2000)}, 2);
  Finished f = stop_and_collect(rt, 2, true);
  quanta_runtime_destroy(rt);
  return f;
}

TEST(ClassSchedule, ACappedBestEffortClassIdlesTheWorkerPastItsBudget) {
  const Finished f = be_alone("lc,be:500/5000:cap");
  ASSERT_EQ(f.be.size(), 2u);
  EXPECT_GE(f.usage[1].throttled_spells, 2u);
  EXPECT_GE(f.usage[1].budget_ended_quanta, 2u);
  EXPECT_EQ(f.usage[0].quanta, 0u);
}

TEST(ClassSchedule, AnUncappedBestEffortClassUsesTheIdleCpu) {
  const Finished f = be_alone("lc,be:500/5000");
  ASSERT_EQ(f.be.size(), 2u);
  EXPECT_EQ(f.usage[1].throttled_spells, 0u);
}

TEST(ClassSchedule, RefusedWhereNoWorkerKeepsItsOwnQueues) {
  const quanta_app a = app();
  for (const char* dispatch : {"central", "jbsq:2", "steal"}) {
    quanta_runtime_options o = options("lc,be", 2);
    o.dispatch_policy = dispatch;
    quanta_runtime* rt = nullptr;
    EXPECT_EQ(quanta_runtime_start(&o, &a, "", &rt), QUANTA_ERR_INVALID) << dispatch;
    EXPECT_NE(std::string(quanta_last_error()).find("class-schedule"), std::string::npos) << quanta_last_error();
    EXPECT_EQ(rt, nullptr);
  }
  quanta_runtime_options o = options("lc,xx", 2);
  quanta_runtime* rt = nullptr;
  EXPECT_EQ(quanta_runtime_start(&o, &a, "", &rt), QUANTA_ERR_INVALID);
  EXPECT_NE(std::string(quanta_last_error()).find("the kind must be lc or be"), std::string::npos)
      << quanta_last_error();
}

TEST(ClassSchedule, UsageIsAskedOfAStoppedRuntimeWithASchedule) {
  const quanta_app a = app();
  quanta_runtime_options o = options(nullptr, 2);
  quanta_runtime* rt = nullptr;
  ASSERT_EQ(quanta_runtime_start(&o, &a, "", &rt), QUANTA_OK) << quanta_last_error();
  quanta_class_usage u;
  EXPECT_EQ(quanta_runtime_class_usage(rt, 0, &u), QUANTA_ERR_STATE) << "still running";
  ASSERT_EQ(quanta_runtime_stop(rt, nullptr), QUANTA_OK);
  EXPECT_EQ(quanta_runtime_class_usage(rt, 0, &u), QUANTA_ERR_STATE) << "no schedule";
  EXPECT_EQ(quanta_runtime_class_usage(rt, 0, nullptr), QUANTA_ERR_INVALID);
  quanta_runtime_destroy(rt);

  o = options("lc,be", 2);
  ASSERT_EQ(quanta_runtime_start(&o, &a, "", &rt), QUANTA_OK) << quanta_last_error();
  ASSERT_EQ(quanta_runtime_stop(rt, nullptr), QUANTA_OK);
  EXPECT_EQ(quanta_runtime_class_usage(rt, 1, &u), QUANTA_OK);
  EXPECT_EQ(quanta_runtime_class_usage(rt, 2, &u), QUANTA_ERR_INVALID) << quanta_last_error();
  quanta_runtime_destroy(rt);
}

}  // namespace

namespace {

std::atomic<bool> g_release{false};

// Class 1 spins (probing) until released; class 0 returns at once.
void held_or_quick(const quanta_request* request, quanta_response*) {
  if (request->class_index == 0) return;
  while (!g_release.load()) quanta_probe();
}

// Four task slots, one kept for LC. Six BE requests that run until released take the
// other three and wait aside; LC requests queued behind them in the ring still get the
// kept slot and finish while every BE request is held.
TEST(ClassSchedule, BestEffortRequestsNeverTakeTheSlotsKeptForLatencyCriticalOnes) {
  g_release = false;
  quanta_app a{};
  a.abi_version = QUANTA_APP_ABI_VERSION;
  a.name = "held-or-quick";
  a.handle_request = held_or_quick;
  quanta_runtime_options o = options("lc,be", 5);
  o.task_slots = 4;
  quanta_runtime* rt = nullptr;
  ASSERT_EQ(quanta_runtime_start(&o, &a, "", &rt), QUANTA_OK) << quanta_last_error();
  const Job job{};
  for (uint64_t i = 0; i < 6; ++i) submit(rt, 1, job, 100 + i);
  for (uint64_t i = 0; i < 3; ++i) submit(rt, 0, job, i);
  int lc_done = 0;
  quanta_completion done[8];
  // A safety net only: the LC requests finish within microseconds, or never.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (lc_done < 3 && std::chrono::steady_clock::now() < give_up) {
    const int n = quanta_runtime_poll(rt, done, 8);
    ASSERT_GE(n, 0) << quanta_last_error();
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(done[i].class_index, 0u) << "a BE request finished before it was released";
      lc_done += done[i].class_index == 0;
    }
  }
  EXPECT_EQ(lc_done, 3) << "LC requests stayed in the ring behind BE requests";
  g_release = true;
  quanta_run_stats stats;
  ASSERT_EQ(quanta_runtime_stop(rt, &stats), QUANTA_OK) << quanta_last_error();
  EXPECT_EQ(stats.completed, 9u);
  quanta_class_usage be{};
  ASSERT_EQ(quanta_runtime_class_usage(rt, 1, &be), QUANTA_OK) << quanta_last_error();
  EXPECT_EQ(be.admissions_deferred, 3u) << "three BE slots, six BE requests";
  quanta_class_usage lc{};
  ASSERT_EQ(quanta_runtime_class_usage(rt, 0, &lc), QUANTA_OK) << quanta_last_error();
  EXPECT_EQ(lc.admissions_deferred, 0u);
  quanta_runtime_destroy(rt);
}

}  // namespace
