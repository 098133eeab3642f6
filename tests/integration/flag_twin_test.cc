// --dispatcher-works under --preempt flag (Concord's configuration): the workers' quanta
// end by the monitor's flag, and a request the dispatcher runs itself runs the clock twin
// the pass made of the handler, so the dispatcher still gets back to its duties after a
// quantum. Counts and ordering only.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "quanta/flag_twins.h"
#include "quanta/probe.h"
#include "quanta/runtime.h"

extern "C" {
extern std::atomic<unsigned> twin_test_started;  // twin_handler.c (flag mode)
void twin_test_handle(const quanta_request* request, quanta_response* response);
}

namespace {

// Compiled without the pass: no twin.
void plain_handle(const quanta_request*, quanta_response* response) { response->status = 0; }

quanta_app app_with(void (*handler)(const quanta_request*, quanta_response*)) {
  quanta_app app{};
  app.abi_version = QUANTA_APP_ABI_VERSION;
  app.name = "twin-test";
  app.handle_request = handler;
  return app;
}

quanta_runtime_options flag_dispatcher_works() {
  quanta_runtime_options o;
  quanta_runtime_options_init(&o);
  o.workers = 1;
  o.dispatch_policy = "central";
  o.preempt = "flag";
  o.dispatcher_works = 1;
  o.class_count = 1;
  o.max_in_flight = 16;
  o.max_payload_bytes = 64;
  o.max_response_bytes = 64;
  return o;
}

void wait_until_started(unsigned n) {
  while (twin_test_started.load() < n) sched_yield();
}

TEST(FlagTwins, TheFlagHandlerHasARegisteredClockTwin) {
  const void* twin = quanta_flag_twin_of(reinterpret_cast<const void*>(&twin_test_handle));
  ASSERT_NE(twin, nullptr) << "the pass's constructor registered the object's table";
  EXPECT_NE(twin, reinterpret_cast<const void*>(&twin_test_handle));
  EXPECT_EQ(quanta_flag_twin_of(reinterpret_cast<const void*>(&plain_handle)), nullptr);
}

// The worker runs W; L arrives while the worker is full, so the dispatcher runs it
// itself; S arrives while L runs. If the dispatcher ran L's flag-probed code, nothing
// would stop it (nobody writes the dispatcher a flag): it would poll for S only after
// L's whole service time, and L would finish first, in one quantum.
TEST(FlagTwins, TheDispatcherPreemptsTheRequestItRunsUnderFlag) {
  const quanta_app app = app_with(&twin_test_handle);
  quanta_runtime_options o = flag_dispatcher_works();
  quanta_runtime* rt = nullptr;
  twin_test_started = 0;
  ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
  // W holds the worker for far longer than this thread can take to submit L, even when it
  // has to wait for a CPU (the dispatcher and the worker spin on both of a 2-CPU VM's).
  const uint64_t worker_cycles = 1'000'000'000, long_cycles = 500'000'000, short_cycles = 1000;
  ASSERT_EQ(quanta_runtime_submit(rt, &worker_cycles, sizeof worker_cycles, 0, 'W'), QUANTA_OK)
      << quanta_last_error();
  wait_until_started(1);
  ASSERT_EQ(quanta_runtime_submit(rt, &long_cycles, sizeof long_cycles, 0, 'L'), QUANTA_OK) << quanta_last_error();
  wait_until_started(2);
  ASSERT_EQ(quanta_runtime_submit(rt, &short_cycles, sizeof short_cycles, 0, 'S'), QUANTA_OK) << quanta_last_error();

  std::vector<quanta_completion> done;
  quanta_completion c;
  while (done.size() < 3) {
    const int got = quanta_runtime_poll(rt, &c, 1);
    ASSERT_GE(got, 0) << quanta_last_error();
    if (got == 1) done.push_back(c);
  }
  quanta_run_stats stats;
  ASSERT_EQ(quanta_runtime_stop(rt, &stats), QUANTA_OK) << quanta_last_error();
  quanta_runtime_destroy(rt);

  std::string order;
  for (const quanta_completion& d : done) order += static_cast<char>(d.cookie);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0], 'S') << "order " << order << ": the short request, admitted last, finishes first";
  for (const quanta_completion& d : done) {
    EXPECT_EQ(d.status, 0);
    if (d.cookie == 'L') {
      EXPECT_EQ(d.worker, -1) << "the dispatcher ran L itself";
      EXPECT_GT(d.quanta, 1u) << "and preempted it";
    } else {
      EXPECT_EQ(d.worker, 0) << static_cast<char>(d.cookie) << " ran on the worker";
    }
  }
  EXPECT_EQ(stats.completed, 3u);
}

// A pair registered by hand through the same public call the pass's constructors make:
// the dispatcher runs the twin the registry names, the worker the handler itself.
std::atomic<unsigned> g_by_hand_started{0};

uint64_t service_of(const quanta_request* request) {
  uint64_t cycles = 0;
  if (request->payload_len >= sizeof cycles) std::memcpy(&cycles, request->payload, sizeof cycles);
  return cycles;
}

void by_hand_flag(const quanta_request* request, quanta_response* response) {
  g_by_hand_started.fetch_add(1);
  while (quanta_task_cpu_cycles() < service_of(request)) quanta_flag_probe();
  response->value = 'F';
}

void by_hand_clock(const quanta_request* request, quanta_response* response) {
  g_by_hand_started.fetch_add(1);
  while (quanta_task_cpu_cycles() < service_of(request)) quanta_probe();
  response->value = 'C';
}

const quanta_flag_twin kByHand[] = {
    {reinterpret_cast<const void*>(&by_hand_flag), reinterpret_cast<const void*>(&by_hand_clock)}};

TEST(FlagTwins, TheDispatcherRunsTheRegisteredTwinAndTheWorkerTheHandler) {
  quanta_register_flag_twins(kByHand, 1);
  const quanta_app app = app_with(&by_hand_flag);
  quanta_runtime_options o = flag_dispatcher_works();
  quanta_runtime* rt = nullptr;
  ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
  const uint64_t worker_cycles = 1'000'000'000, own_cycles = 1'000'000;
  ASSERT_EQ(quanta_runtime_submit(rt, &worker_cycles, sizeof worker_cycles, 0, 'W'), QUANTA_OK)
      << quanta_last_error();
  while (g_by_hand_started.load() < 1) sched_yield();
  ASSERT_EQ(quanta_runtime_submit(rt, &own_cycles, sizeof own_cycles, 0, 'L'), QUANTA_OK) << quanta_last_error();
  int seen = 0;
  quanta_completion c;
  while (seen < 2) {
    const int got = quanta_runtime_poll(rt, &c, 1);
    ASSERT_GE(got, 0) << quanta_last_error();
    if (got == 0) continue;
    ++seen;
    if (c.cookie == 'L') {
      EXPECT_EQ(c.worker, -1);
      EXPECT_EQ(c.value, uint64_t{'C'}) << "the dispatcher ran the twin";
    } else {
      EXPECT_EQ(c.worker, 0);
      EXPECT_EQ(c.value, uint64_t{'F'}) << "the worker ran the flag-probed handler";
    }
  }
  ASSERT_EQ(quanta_runtime_stop(rt, nullptr), QUANTA_OK) << quanta_last_error();
  quanta_runtime_destroy(rt);
  quanta_unregister_flag_twins(kByHand);
  EXPECT_EQ(quanta_flag_twin_of(reinterpret_cast<const void*>(&by_hand_flag)), nullptr);
}

TEST(FlagTwins, AHandlerWithoutATwinIsRefusedUnderFlag) {
  const quanta_app app = app_with(&plain_handle);
  quanta_runtime_options o = flag_dispatcher_works();
  quanta_runtime* rt = nullptr;
  EXPECT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_ERR_INVALID);
  const std::string error = quanta_last_error();
  EXPECT_NE(error.find("--dispatcher-works"), std::string::npos) << error;
  EXPECT_NE(error.find("clock twin"), std::string::npos) << error;
  // Clock needs no twin: the same app starts.
  o.preempt = "clock";
  ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
  ASSERT_EQ(quanta_runtime_stop(rt, nullptr), QUANTA_OK) << quanta_last_error();
  quanta_runtime_destroy(rt);
}

}  // namespace
