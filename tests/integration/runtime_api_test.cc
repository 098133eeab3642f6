// The public runtime API (quanta/runtime.h) as an application uses it: start a runtime,
// submit requests with real payloads from the application's own threads, take every
// completion (by polling, or by callback), stop it; and every misuse gets its error code
// and a message. Counts and ordering only, never timings.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "quanta/runtime.h"
#include "test_apps.h"

namespace {

// Class 0 echoes its payload reversed; class 1 spins for the number of cycles in its
// payload (probes through quanta_task_cpu_cycles) and reports how many yields it saw.
void echo_or_spin(const quanta_request* request, quanta_response* response) {
  const auto* bytes = static_cast<const unsigned char*>(request->payload);
  if (request->class_index == 0) {
    for (uint32_t i = 0; i < request->payload_len; ++i) {
      const unsigned char b = bytes[request->payload_len - 1 - i];
      if (quanta_response_append(response, &b, 1) != 0) {
        response->status = 1;
        return;
      }
    }
    response->value = request->payload_len;
    return;
  }
  uint64_t cycles = 0;
  std::memcpy(&cycles, bytes, sizeof cycles);
  // Both probes: whichever the run's mechanism arms (the other never fires).
  while (quanta_task_cpu_cycles() < cycles) {
    quanta_probe();
    quanta_flag_probe();
  }
}

int g_setup_calls = 0, g_teardown_calls = 0;
std::atomic<int> g_worker_setups{0}, g_worker_teardowns{0};
std::string g_config;

int setup(const char* config) {
  ++g_setup_calls;
  g_config = config;
  return 0;
}
int setup_worker(int) {
  g_worker_setups.fetch_add(1);
  return 0;
}
void teardown_worker(int) { g_worker_teardowns.fetch_add(1); }
void teardown() { ++g_teardown_calls; }

quanta_app test_app() {
  quanta_app app{};
  app.abi_version = QUANTA_APP_ABI_VERSION;
  app.name = "echo-or-spin";
  app.setup = setup;
  app.setup_worker = setup_worker;
  app.handle_request = echo_or_spin;
  app.teardown_worker = teardown_worker;
  app.teardown = teardown;
  return app;
}

quanta_runtime_options small_options() {
  quanta_runtime_options o;
  quanta_runtime_options_init(&o);
  o.class_count = 2;
  o.max_in_flight = 64;
  o.max_payload_bytes = 256;
  o.max_response_bytes = 256;
  return o;
}

TEST(RuntimeApi, SubmitPollStopFromAUserThread) {
  g_setup_calls = g_teardown_calls = 0;
  g_worker_setups = g_worker_teardowns = 0;
  const quanta_app app = test_app();
  quanta_runtime_options o = small_options();
  quanta_runtime* rt = nullptr;
  ASSERT_EQ(quanta_runtime_start(&o, &app, "keys=10", &rt), QUANTA_OK) << quanta_last_error();
  EXPECT_EQ(g_setup_calls, 1);
  EXPECT_EQ(g_config, "keys=10");

  constexpr int kRequests = 500;
  const uint64_t long_cycles = static_cast<uint64_t>(quanta_tsc_per_us() * 200);  // 100 quanta of 2 us
  std::set<uint64_t> cookies_back;
  int longs = 0, long_preempted = 0;
  uint64_t touched = 0;  // completions a host stall touched
  int submitted = 0;
  quanta_completion done[16];
  auto take = [&] {
    const int n = quanta_runtime_poll(rt, done, 16);
    ASSERT_GE(n, 0) << quanta_last_error();
    for (int i = 0; i < n; ++i) {
      const quanta_completion& c = done[i];
      EXPECT_TRUE(cookies_back.insert(c.cookie).second) << "cookie " << c.cookie << " completed twice";
      if (c.class_index == 0) {
        // The payload was the cookie's decimal text; the response is it reversed.
        std::string sent = std::to_string(c.cookie);
        std::string back(static_cast<const char*>(c.response), c.response_len);
        EXPECT_EQ(std::string(sent.rbegin(), sent.rend()), back);
        EXPECT_EQ(c.value, sent.size());
      } else {
        ++longs;
        if (c.quanta > 1) ++long_preempted;
        EXPECT_GE(c.cpu_cycles, long_cycles);
      }
      EXPECT_EQ(c.status, 0);
      EXPECT_LE(c.stall_touched, 1u);
      touched += c.stall_touched;
      EXPECT_LE(c.arrival_tsc, c.start_tsc);
      EXPECT_LE(c.start_tsc, c.finish_tsc);
    }
  };
  while (submitted < kRequests) {
    int code;
    if (submitted % 50 == 7) {
      code = quanta_runtime_submit(rt, &long_cycles, sizeof long_cycles, 1, static_cast<uint64_t>(submitted));
    } else {
      const std::string text = std::to_string(submitted);
      code = quanta_runtime_submit(rt, text.data(), static_cast<uint32_t>(text.size()), 0,
                                   static_cast<uint64_t>(submitted));
    }
    if (code == QUANTA_ERR_FULL) {  // 64 in flight: take some back first
      take();
      continue;
    }
    ASSERT_EQ(code, QUANTA_OK) << quanta_last_error();
    ++submitted;
  }
  quanta_run_stats stats;
  ASSERT_EQ(quanta_runtime_stop(rt, &stats), QUANTA_OK) << quanta_last_error();
  // Completions left after the stop can still be taken.
  for (int i = 0; i < kRequests && cookies_back.size() < kRequests; ++i) take();
  EXPECT_EQ(cookies_back.size(), static_cast<std::size_t>(kRequests));
  EXPECT_EQ(stats.submitted, static_cast<uint64_t>(kRequests));
  EXPECT_EQ(stats.completed, static_cast<uint64_t>(kRequests));
  EXPECT_EQ(stats.app_errors, 0u);
  EXPECT_EQ(longs, kRequests / 50);
  EXPECT_GT(long_preempted, 0) << "a 200 us request under 2 us quanta was never preempted";
  quanta_class_stats shorts, spins;
  ASSERT_EQ(quanta_runtime_class_stats(rt, 0, &shorts), QUANTA_OK);
  ASSERT_EQ(quanta_runtime_class_stats(rt, 1, &spins), QUANTA_OK);
  EXPECT_EQ(shorts.completed + spins.completed, static_cast<uint64_t>(kRequests));
  EXPECT_GT(spins.preemptions_per_request, 1.0);
  // However many host stalls this run met, the untouched requests are the completions
  // without the mark, class by class.
  quanta_class_stats untouched_shorts, untouched_spins;
  ASSERT_EQ(quanta_runtime_untouched_class_stats(rt, 0, &untouched_shorts), QUANTA_OK);
  ASSERT_EQ(quanta_runtime_untouched_class_stats(rt, 1, &untouched_spins), QUANTA_OK);
  EXPECT_LE(untouched_shorts.completed, shorts.completed);
  EXPECT_LE(untouched_spins.completed, spins.completed);
  EXPECT_EQ(stats.stall_touched, touched);
  EXPECT_EQ(untouched_shorts.completed + untouched_spins.completed + touched, static_cast<uint64_t>(kRequests));
  if (touched > 0) EXPECT_GT(stats.host_stalls, 0u);
  EXPECT_EQ(g_teardown_calls, 1);
  EXPECT_EQ(g_worker_setups.load(), g_worker_teardowns.load());
  quanta_runtime_destroy(rt);
}

struct CallbackTally {
  std::atomic<uint64_t> count{0};
  std::atomic<uint64_t> cookie_sum{0};
};

void on_done(const quanta_completion* c, void* user) {
  auto* tally = static_cast<CallbackTally*>(user);
  tally->cookie_sum.fetch_add(c->cookie);
  tally->count.fetch_add(1);
}

TEST(RuntimeApi, CompletionCallbackSeesEveryRequestFromSeveralSubmitters) {
  const quanta_app app = test_app();
  quanta_runtime_options o = small_options();
  CallbackTally tally;
  o.on_complete = on_done;
  o.on_complete_user = &tally;
  quanta_runtime* rt = nullptr;
  ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
  constexpr int kThreads = 3, kEach = 400;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([rt, t] {
      for (int i = 0; i < kEach;) {
        const uint64_t cookie = static_cast<uint64_t>(t * kEach + i);
        const int code = quanta_runtime_submit(rt, &cookie, sizeof cookie, 0, cookie);
        if (code == QUANTA_ERR_FULL) {
          std::this_thread::yield();
          continue;
        }
        ASSERT_EQ(code, QUANTA_OK) << quanta_last_error();
        ++i;
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(quanta_runtime_stop(rt, nullptr), QUANTA_OK);
  constexpr uint64_t n = kThreads * kEach;
  EXPECT_EQ(tally.count.load(), n);
  EXPECT_EQ(tally.cookie_sum.load(), n * (n - 1) / 2);
  quanta_completion c;
  EXPECT_EQ(quanta_runtime_poll(rt, &c, 1), QUANTA_ERR_STATE);  // completions went to the callback
  quanta_runtime_destroy(rt);
}

// idle = "block": between requests the runtime's threads sleep (the dispatcher in
// epoll_wait on the submissions' doorbell, the workers on their futex); every submit wakes
// them, whatever the dispatch and the mechanism, and a stop wakes a sleeping dispatcher.
class BlockIdle : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(BlockIdle, EverySubmitAfterAQuietSpellIsServed) {
  const quanta_app app = test_app();
  quanta_runtime_options o = small_options();
  o.idle = "block";
  o.dispatch_policy = GetParam().first;
  o.preempt = GetParam().second;
  quanta_runtime* rt = nullptr;
  ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
  constexpr int kRounds = 40;
  int served = 0;
  for (int i = 0; i < kRounds; ++i) {
    // Odd rounds: a request that runs many quanta (the monitor mechanisms need the
    // dispatcher awake for it); even ones: an echo.
    const uint64_t cycles = 200000;
    const int cls = i % 2;
    ASSERT_EQ(quanta_runtime_submit(rt, &cycles, sizeof cycles, cls, i), QUANTA_OK) << quanta_last_error();
    quanta_completion c;
    int got = 0;
    while ((got = quanta_runtime_poll(rt, &c, 1)) == 0) std::this_thread::yield();
    ASSERT_EQ(got, 1);
    EXPECT_EQ(c.cookie, static_cast<uint64_t>(i));
    ++served;
    usleep(1000);  // quiet: the runtime goes to sleep
  }
  usleep(2000);
  quanta_run_stats stats;
  ASSERT_EQ(quanta_runtime_stop(rt, &stats), QUANTA_OK) << quanta_last_error();
  EXPECT_EQ(served, kRounds);
  EXPECT_EQ(stats.completed, static_cast<uint64_t>(kRounds));
  quanta_runtime_destroy(rt);
}

// Quantum lengths through the API: a request's own, its class's, and the runtime's changed
// while it runs, with each mechanism. A 60 ms request in 1 ms quanta runs at most 61 of
// them (each quantum lasts at least its length: host stalls only make fewer); in the
// default 2 us quanta it would run tens of thousands. At least 2: one stall would have to
// last 59 ms to make it one (at 20 ms, the signal mechanism's timer thread was once kept
// off the CPU that long by a machine loaded with compiles).
// Under ThreadSanitizer the signal mechanism cannot end a quantum inside the spinning
// handler (test_apps.h): the lower bound is checked for the other mechanisms only.
class QuantumLength : public ::testing::TestWithParam<const char*> {};

TEST_P(QuantumLength, ARequestsOwnItsClasssAndTheRuntimesChangedLengthAreUsed) {
  const quanta_app app = test_app();
  quanta_runtime_options o = small_options();
  o.preempt = GetParam();
  const uint32_t at_least = quanta::testing::switches_inside_task_code(GetParam()) ? 2 : 1;
  const double class_quanta[] = {0, 1000};  // class 1 (the spinning class): 1 ms
  o.class_quantum_us = class_quanta;  // class_count 2
  quanta_runtime* rt = nullptr;
  ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
  const uint64_t cycles = static_cast<uint64_t>(quanta_tsc_per_us() * 60'000);
  auto run_one = [&](auto submit) {
    submit();
    quanta_completion c;
    int got = 0;
    while ((got = quanta_runtime_poll(rt, &c, 1)) == 0) {
    }
    EXPECT_EQ(got, 1) << quanta_last_error();
    return c.quanta;
  };
  // The class's 1 ms.
  uint32_t quanta = run_one([&] { ASSERT_EQ(quanta_runtime_submit(rt, &cycles, sizeof cycles, 1, 1), QUANTA_OK); });
  EXPECT_GE(quanta, at_least);
  EXPECT_LE(quanta, 61u);
  // Its own 5 ms, over the class's.
  quanta = run_one([&] {
    ASSERT_EQ(quanta_runtime_submit_with_quantum(rt, &cycles, sizeof cycles, 1, 2, 5000), QUANTA_OK);
  });
  EXPECT_GE(quanta, at_least);
  EXPECT_LE(quanta, 13u);
  quanta_run_stats stats;
  ASSERT_EQ(quanta_runtime_stop(rt, &stats), QUANTA_OK) << quanta_last_error();
  quanta_runtime_destroy(rt);

  // The runtime's quantum, changed while it runs: no class quantum this time.
  o.class_quantum_us = nullptr;
  ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
  ASSERT_EQ(quanta_runtime_set_quantum(rt, 1000), QUANTA_OK) << quanta_last_error();
  quanta = run_one([&] { ASSERT_EQ(quanta_runtime_submit(rt, &cycles, sizeof cycles, 1, 3), QUANTA_OK); });
  EXPECT_GE(quanta, at_least);
  EXPECT_LE(quanta, 61u);
  EXPECT_EQ(quanta_runtime_set_quantum(rt, -1), QUANTA_ERR_INVALID);
  EXPECT_NE(std::string(quanta_last_error()).find("quantum_us"), std::string::npos) << quanta_last_error();
  EXPECT_EQ(quanta_runtime_submit_with_quantum(rt, &cycles, sizeof cycles, 1, 4, 0.0 / 0.0), QUANTA_ERR_INVALID);
  ASSERT_EQ(quanta_runtime_stop(rt, &stats), QUANTA_OK) << quanta_last_error();
  EXPECT_EQ(quanta_runtime_set_quantum(rt, 5), QUANTA_ERR_STATE);
  quanta_runtime_destroy(rt);
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, QuantumLength, ::testing::Values("clock", "flag", "signal"));

// A handler with no probes: spins on the cycle counter for the cycles in its payload.
void spin_without_probes(const quanta_request* request, quanta_response*) {
  uint64_t cycles = 0;
  std::memcpy(&cycles, request->payload, sizeof cycles);
  const uint64_t until = quanta_read_tsc() + cycles;
  while (quanta_read_tsc() < until) {
  }
}

// The watchdog through the C API: a request that runs 100 quanta past its quantum without
// a probe is counted in the stats (not printed: a library does not write to stderr unasked).
TEST(RuntimeApi, OverrunsOfCodeWithoutProbesAreCounted) {
  quanta_app app{};
  app.abi_version = QUANTA_APP_ABI_VERSION;
  app.name = "spin-without-probes";
  app.handle_request = spin_without_probes;
  quanta_runtime_options o = small_options();
  o.quantum_us = 2;
  o.overrun_report_quanta = 100;  // 200 us
  quanta_runtime* rt = nullptr;
  ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
  const uint64_t cycles = static_cast<uint64_t>(quanta_tsc_per_us() * 20'000);  // 20 ms each
  constexpr int kRequests = 3;
  for (int i = 0; i < kRequests; ++i) {
    ASSERT_EQ(quanta_runtime_submit(rt, &cycles, sizeof cycles, 0, i), QUANTA_OK) << quanta_last_error();
  }
  quanta_run_stats stats;
  ASSERT_EQ(quanta_runtime_stop(rt, &stats), QUANTA_OK) << quanta_last_error();
  EXPECT_EQ(stats.completed, static_cast<uint64_t>(kRequests));
  EXPECT_EQ(stats.overruns, static_cast<uint64_t>(kRequests)) << "each request is one overrunning quantum";
  quanta_runtime_destroy(rt);
}

// dispatcher_only: one thread runs everything. Short requests submitted behind a long one
// finish first (ps shares the dispatcher's thread among them), and all finish.
TEST(RuntimeApi, DispatcherOnlySharesItsThreadAmongItsRequests) {
  const quanta_app app = test_app();
  quanta_runtime_options o = small_options();
  o.dispatcher_only = 1;
  o.dispatch_policy = "central";
  o.idle = "block";
  quanta_runtime* rt = nullptr;
  ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
  const uint64_t long_cycles = 400'000'000;  // ~0.1 s and more: the shorts arrive while it runs
  ASSERT_EQ(quanta_runtime_submit(rt, &long_cycles, sizeof long_cycles, 1, 999), QUANTA_OK) << quanta_last_error();
  constexpr int kShort = 10;
  for (int i = 0; i < kShort; ++i) {
    ASSERT_EQ(quanta_runtime_submit(rt, "ab", 2, 0, i), QUANTA_OK) << quanta_last_error();
  }
  std::vector<uint64_t> order;
  quanta_completion c;
  while (order.size() < kShort + 1) {
    const int got = quanta_runtime_poll(rt, &c, 1);
    ASSERT_GE(got, 0) << quanta_last_error();
    if (got == 1) order.push_back(c.cookie);
  }
  EXPECT_EQ(order.back(), 999u) << "the long request finishes last";
  quanta_run_stats stats;
  ASSERT_EQ(quanta_runtime_stop(rt, &stats), QUANTA_OK) << quanta_last_error();
  EXPECT_EQ(stats.completed, static_cast<uint64_t>(kShort + 1));
  quanta_runtime_destroy(rt);
}

// The dispatcher that runs requests is a worker to the app: setup_worker before its first
// request and teardown_worker after its last, on its own thread, with the index after the
// workers' (0 with dispatcher_only). An app that opens its state there (kv opens LevelDB)
// would otherwise serve from nothing.
std::atomic<int> g_dispatcher_setups{0}, g_dispatcher_teardowns{0};
int g_expected_dispatcher_index = -1;

TEST(RuntimeApi, TheDispatcherThatRunsRequestsIsSetUpAsAWorker) {
  for (const bool only : {true, false}) {
    quanta_app app = test_app();
    app.setup_worker = [](int index) {
      if (index == g_expected_dispatcher_index) g_dispatcher_setups.fetch_add(1);
      return 0;
    };
    app.teardown_worker = [](int index) {
      if (index == g_expected_dispatcher_index) g_dispatcher_teardowns.fetch_add(1);
    };
    quanta_runtime_options o = small_options();
    o.dispatch_policy = "central";
    if (only) {
      o.dispatcher_only = 1;
    } else {
      o.dispatcher_works = 1;
      o.workers = 1;
    }
    g_expected_dispatcher_index = only ? 0 : 1;
    g_dispatcher_setups = g_dispatcher_teardowns = 0;
    quanta_runtime* rt = nullptr;
    ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
    EXPECT_EQ(g_dispatcher_setups.load(), 1) << "set up before start returns, once";
    ASSERT_EQ(quanta_runtime_submit(rt, "ab", 2, 0, 1), QUANTA_OK) << quanta_last_error();
    quanta_run_stats stats;
    ASSERT_EQ(quanta_runtime_stop(rt, &stats), QUANTA_OK) << quanta_last_error();
    EXPECT_EQ(stats.completed, 1u);
    EXPECT_EQ(g_dispatcher_teardowns.load(), 1);
    quanta_runtime_destroy(rt);

    // Its failure fails the start, as a worker's does, and names the dispatcher.
    app.setup_worker = [](int index) { return index == g_expected_dispatcher_index ? 1 : 0; };
    EXPECT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_ERR_APP);
    EXPECT_NE(std::string(quanta_last_error()).find("dispatcher"), std::string::npos) << quanta_last_error();
    EXPECT_EQ(rt, nullptr);
  }
}

INSTANTIATE_TEST_SUITE_P(DispatchAndMechanism, BlockIdle,
                         ::testing::Values(std::pair{"jsq-msq", "clock"}, std::pair{"jsq-msq", "flag"},
                                           std::pair{"jbsq:2", "signal"}, std::pair{"central", "clock"}),
                         [](const auto& info) {
                           std::string name = std::string(info.param.first) + "_" + info.param.second;
                           for (char& ch : name) {
                             if (ch == ':' || ch == '-') ch = '_';
                           }
                           return name;
                         });

TEST(RuntimeApi, MisuseGetsAnErrorCodeAndAMessage) {
  const quanta_app app = test_app();
  quanta_runtime_options o = small_options();
  quanta_runtime* rt = nullptr;

  EXPECT_EQ(quanta_runtime_start(nullptr, &app, nullptr, &rt), QUANTA_ERR_INVALID);
  EXPECT_NE(std::string(quanta_last_error()).find("options"), std::string::npos);
  EXPECT_EQ(quanta_runtime_start(&o, nullptr, nullptr, &rt), QUANTA_ERR_INVALID);
  EXPECT_EQ(quanta_runtime_start(&o, &app, nullptr, nullptr), QUANTA_ERR_INVALID);

  quanta_app old = app;
  old.abi_version = 1;
  EXPECT_EQ(quanta_runtime_start(&o, &old, nullptr, &rt), QUANTA_ERR_INVALID);
  EXPECT_NE(std::string(quanta_last_error()).find("abi_version"), std::string::npos);
  quanta_app no_handler = app;
  no_handler.handle_request = nullptr;
  EXPECT_EQ(quanta_runtime_start(&o, &no_handler, nullptr, &rt), QUANTA_ERR_INVALID);

  struct Bad {
    void (*change)(quanta_runtime_options&);
    const char* named;
  };
  const Bad bad[] = {
      {[](quanta_runtime_options& x) { x.size = 3; }, "size"},
      {[](quanta_runtime_options& x) { x.quantum_us = -1; }, "quantum"},
      {[](quanta_runtime_options& x) { x.quantum_us = 0.0 / 0.0; }, "quantum"},
      {[](quanta_runtime_options& x) { x.local_policy = "lifo"; }, "lifo"},
      {[](quanta_runtime_options& x) { x.dispatch_policy = "jbsq:0"; }, "jbsq"},
      {[](quanta_runtime_options& x) { x.preempt = "telepathy"; }, "telepathy"},
      {[](quanta_runtime_options& x) { x.task_slots = 0; }, "task-slots"},
      {[](quanta_runtime_options& x) { x.stack_kib = 1; }, "stack"},
      {[](quanta_runtime_options& x) { x.max_in_flight = 0; }, "max_in_flight"},
      {[](quanta_runtime_options& x) { x.class_count = 0; }, "class_count"},
      {[](quanta_runtime_options& x) { x.idle = "nap"; }, "idle"},
      {[](quanta_runtime_options& x) { x.idle_spin_us = -1; }, "idle-spin-us"},
      {[](quanta_runtime_options& x) { x.watchdog_ms = -1; }, "watchdog-ms"},
      {[](quanta_runtime_options& x) { x.overrun_report_quanta = 0.0 / 0.0; }, "overrun-report-quanta"},
      {[](quanta_runtime_options& x) { x.dispatcher_only = 1; }, "central"},  // the default jsq-msq
      {[](quanta_runtime_options& x) {
         x.dispatcher_only = 1;
         x.dispatch_policy = "central";
         x.workers = 1;
       }, "dispatcher-only"},
      {[](quanta_runtime_options& x) { x.workers = 100000; }, "workers"},
      {[](quanta_runtime_options& x) { x.dispatcher_cpu = 4000; }, "dispatcher_cpu"},
      {[](quanta_runtime_options& x) { x.dispatcher_works = 1; }, "dispatcher-works"},
  };
  for (const Bad& b : bad) {
    quanta_runtime_options x = small_options();
    b.change(x);
    EXPECT_EQ(quanta_runtime_start(&x, &app, nullptr, &rt), QUANTA_ERR_INVALID) << b.named;
    EXPECT_NE(std::string(quanta_last_error()).find(b.named), std::string::npos)
        << "message '" << quanta_last_error() << "' does not name " << b.named;
    EXPECT_EQ(rt, nullptr);
  }

  quanta_app failing = app;
  failing.setup = [](const char*) { return 1; };
  EXPECT_EQ(quanta_runtime_start(&o, &failing, nullptr, &rt), QUANTA_ERR_APP);
  quanta_app failing_worker = app;
  failing_worker.setup_worker = [](int) { return 1; };
  EXPECT_EQ(quanta_runtime_start(&o, &failing_worker, nullptr, &rt), QUANTA_ERR_APP);
  EXPECT_NE(std::string(quanta_last_error()).find("setup_worker"), std::string::npos);

  ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
  EXPECT_EQ(quanta_runtime_submit(nullptr, "x", 1, 0, 0), QUANTA_ERR_INVALID);
  EXPECT_EQ(quanta_runtime_submit(rt, nullptr, 4, 0, 0), QUANTA_ERR_INVALID);
  EXPECT_EQ(quanta_runtime_submit(rt, "x", 1, 2, 0), QUANTA_ERR_INVALID);  // class_count is 2
  std::vector<char> big(257, 'a');
  EXPECT_EQ(quanta_runtime_submit(rt, big.data(), static_cast<uint32_t>(big.size()), 0, 0), QUANTA_ERR_TOO_BIG);
  EXPECT_NE(std::string(quanta_last_error()).find("max_payload_bytes"), std::string::npos);
  EXPECT_EQ(quanta_runtime_submit(rt, nullptr, 0, 0, 0), QUANTA_OK);  // an empty payload is fine
  EXPECT_EQ(quanta_runtime_poll(rt, nullptr, 4), QUANTA_ERR_INVALID);
  quanta_class_stats cs;
  EXPECT_EQ(quanta_runtime_class_stats(rt, 0, &cs), QUANTA_ERR_STATE);  // not stopped yet
  EXPECT_EQ(quanta_runtime_untouched_class_stats(rt, 0, &cs), QUANTA_ERR_STATE);
  ASSERT_EQ(quanta_runtime_stop(rt, nullptr), QUANTA_OK);
  EXPECT_EQ(quanta_runtime_stop(rt, nullptr), QUANTA_ERR_STATE);
  EXPECT_EQ(quanta_runtime_submit(rt, "x", 1, 0, 0), QUANTA_ERR_STATE);
  EXPECT_EQ(quanta_runtime_class_stats(rt, 2, &cs), QUANTA_ERR_INVALID);
  EXPECT_EQ(quanta_runtime_class_stats(rt, 0, nullptr), QUANTA_ERR_INVALID);
  EXPECT_EQ(quanta_runtime_untouched_class_stats(rt, 2, &cs), QUANTA_ERR_INVALID);
  EXPECT_EQ(quanta_runtime_untouched_class_stats(rt, 0, nullptr), QUANTA_ERR_INVALID);
  EXPECT_EQ(quanta_runtime_untouched_class_stats(nullptr, 0, &cs), QUANTA_ERR_INVALID);
  quanta_completion c[2];
  int taken = 0;
  for (int i = 0; i < 10 && taken < 1; ++i) taken += quanta_runtime_poll(rt, c, 2);
  EXPECT_EQ(taken, 1);  // the empty request
  quanta_runtime_destroy(rt);
  quanta_runtime_destroy(nullptr);
  EXPECT_STREQ(quanta_error_name(QUANTA_ERR_FULL), "QUANTA_ERR_FULL");
  EXPECT_STREQ(quanta_error_name(12345), "unknown");
}

TEST(RuntimeApi, DestroyWithoutStopDrainsAndStops) {
  const quanta_app app = test_app();
  quanta_runtime_options o = small_options();
  quanta_runtime* rt = nullptr;
  ASSERT_EQ(quanta_runtime_start(&o, &app, nullptr, &rt), QUANTA_OK) << quanta_last_error();
  for (int i = 0; i < 10; ++i) ASSERT_EQ(quanta_runtime_submit(rt, "ab", 2, 0, static_cast<uint64_t>(i)), QUANTA_OK);
  quanta_runtime_destroy(rt);  // must not hang or leak the threads
  SUCCEED();
}

}  // namespace
