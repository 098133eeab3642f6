// The kernel-thread baseline (run_on_kernel_threads) finishes every request it generates
// and fills every class's statistics, under SCHED_OTHER always and under the RT and
// deadline classes where this machine permits them; the server object under it
// (KernelThreadServer) drains every request taken when stopped, and fails loudly when a
// pool thread's setup fails. Counts only, never timings.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>

#include "linux_runtime/kernel_thread_server.h"
#include "linux_runtime/sched_policy.h"
#include "linux_runtime/thread_pool_run.h"
#include "runtime/api_source.h"
#include "runtime/cpu_layout.h"
#include "spin_app.h"

namespace quanta {
namespace {

RunResult run_pool(const KernelThreadOptions& options, const std::string& workload = "high-bimodal",
                   KernelThreadTotals* totals = nullptr) {
  RunConfig config;
  config.workload = workload;
  config.load = 0.2;
  config.duration_s = 0.1;
  config.warmup_frac = 0;
  return run_on_kernel_threads(config, Workload::parse(workload), *quanta_spin_app(), options, totals);
}

void expect_every_request_done(const RunResult& r, const char* what) {
  EXPECT_GT(r.dispatch.generated, 0u) << what;
  EXPECT_EQ(r.completed, r.dispatch.generated) << what;
  EXPECT_EQ(r.dispatch.dropped, 0u) << what;
  EXPECT_EQ(r.app_errors, 0u) << what;
  ASSERT_EQ(r.classes.size(), 2u) << what;
  uint64_t measured = 0;
  for (const ClassStats& c : r.classes) {
    EXPECT_GT(c.sojourn_ns.count(), 0u) << what << ": every class has samples";
    EXPECT_EQ(c.slowdown_milli.count(), c.sojourn_ns.count()) << what;
    measured += c.sojourn_ns.count();
  }
  EXPECT_EQ(measured, r.completed) << what << ": warm-up 0, every request is measured";
}

// The pool's threads run on the worker CPUs; deadline threads on the whole mask.
std::vector<int> worker_cpus() {
  const std::vector<int> cpus = allowed_cpus();
  return {cpus[1 % cpus.size()]};
}

TEST(LinuxRuntime, SchedOtherFinishesEveryRequest) {
  KernelThreadOptions options;
  KernelThreadTotals totals;
  const RunResult r = run_pool(options, "high-bimodal", &totals);
  expect_every_request_done(r, "other");
  EXPECT_EQ(totals.threads, options.threads_per_core * r.config.workers);
  EXPECT_EQ(r.config.preempt, "kernel");
  EXPECT_EQ(r.config.local_policy, "sched-other");
}

TEST(LinuxRuntime, OneThreadPerCoreFinishesEveryRequest) {
  KernelThreadOptions options;
  options.threads_per_core = 1;
  expect_every_request_done(run_pool(options), "other, 1 thread per core");
}

TEST(LinuxRuntime, RealTimeClassesFinishEveryRequestWherePermitted) {
  for (LinuxPolicy policy : {LinuxPolicy::kRoundRobin, LinuxPolicy::kFifo}) {
    KernelThreadOptions options;
    options.policy = policy;
    // A capability check, not a way to stay green: without CAP_SYS_NICE or an RT
    // rlimit the kernel refuses the class, and the run must then fail loudly (below).
    if (const int error = probe_sched_policy(options, pool_cpus(options, worker_cpus())); error != 0) {
      EXPECT_THROW(run_pool(options), std::runtime_error);
      GTEST_SKIP() << linux_policy_name(policy) << " not permitted here: " << std::strerror(error);
    }
    expect_every_request_done(run_pool(options), linux_policy_name(policy));
  }
}

TEST(LinuxRuntime, DeadlineFinishesEveryRequestWherePermitted) {
  KernelThreadOptions options;
  options.policy = LinuxPolicy::kDeadline;
  if (const int error = probe_sched_policy(options, pool_cpus(options, worker_cpus())); error != 0) {
    EXPECT_THROW(run_pool(options), std::runtime_error);
    GTEST_SKIP() << "SCHED_DEADLINE not permitted here: " << std::strerror(error);
  }
  expect_every_request_done(run_pool(options), "deadline");
}

TEST(LinuxRuntime, DeadlineRefusedOnARestrictedAffinityIsAnError) {
  // SCHED_DEADLINE needs a mask covering the root domain: one CPU of two is refused,
  // which is why the pool's deadline threads keep the whole mask.
  if (allowed_cpus().size() < 2) GTEST_SKIP() << "needs 2 CPUs";
  KernelThreadOptions options;
  options.policy = LinuxPolicy::kDeadline;
  EXPECT_NE(probe_sched_policy(options, worker_cpus()), 0);
}

TEST(LinuxRuntime, DeadlineOverAdmissionIsAnErrorNamingTheOption) {
  KernelThreadOptions options;
  options.policy = LinuxPolicy::kDeadline;
  options.deadline_runtime_us = 900;
  options.deadline_period_us = 1000;
  options.threads_per_core = 8;  // 8 x 90% of a CPU: more than any admission control allows here
  try {
    run_pool(options);
    FAIL() << "the kernel admitted 8 x 90% deadline reservations";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--linux-policy deadline"), std::string::npos) << e.what();
  }
}

void count_completion(const quanta_completion* completion, void* user) {
  if (completion->status == 0) static_cast<std::atomic<uint64_t>*>(user)->fetch_add(1);
}

// Submits `count` spin requests of `cycles` each through the public API's source.
void submit_spins(ApiSource& source, unsigned count, uint64_t cycles) {
  for (unsigned i = 0; i < count; ++i) {
    std::string why;
    ASSERT_EQ(source.submit(&cycles, sizeof cycles, 0, i, 0, why), QUANTA_OK) << why;
  }
}

TEST(KernelThreadServer, StopFinishesEveryRequestAlreadySubmitted) {
  // Submitted and stopped at once: the closed source still hands over what it holds, and
  // the pool runs all of it before stop returns; each completion reaches the sink.
  for (IdleMode idle : {IdleMode::kSpin, IdleMode::kBlock}) {
    KernelThreadServerConfig config;
    config.workers = 1;
    config.options.threads_per_core = 3;
    config.idle = idle;
    std::atomic<uint64_t> completed{0};
    const unsigned count = 200;
    ApiSource source(count, 8, 0, 1, count_completion, &completed, config.options.threads_per_core);
    KernelThreadServer server(config, *quanta_spin_app());
    server.add_source(source);
    server.start("");
    submit_spins(source, count, 20000);
    const KernelThreadResult r = server.stop();
    const char* what = idle_mode_name(idle);
    EXPECT_EQ(completed.load(), count) << what;
    EXPECT_EQ(r.completed, count) << what;
    EXPECT_EQ(r.dispatch.generated, count) << what;
    EXPECT_EQ(r.dispatch.dispatched, count) << what;
    EXPECT_EQ(r.kernel.threads, 3u) << what;
    EXPECT_EQ(r.workers, 1u) << what;
    ASSERT_EQ(r.stalls.size(), 1u) << what;
    EXPECT_EQ(r.stalls[0].thread, "dispatcher") << what;
    EXPECT_GE(r.last_finish_tsc, r.start_tsc) << what;
    EXPECT_GE(r.end_tsc, r.last_finish_tsc) << what;
    EXPECT_FALSE(server.running()) << what;
  }
}

TEST(KernelThreadServer, AStopWakesADispatcherAsleepWithNothingToDo) {
  KernelThreadServerConfig config;
  config.workers = 1;
  config.idle = IdleMode::kBlock;
  config.idle_spin_us = 0;
  std::atomic<uint64_t> completed{0};
  ApiSource source(4, 8, 0, 1, count_completion, &completed, config.options.threads_per_core);
  KernelThreadServer server(config, *quanta_spin_app());
  server.add_source(source);
  server.start("");
  const KernelThreadResult r = server.stop();  // would hang if the sleeping dispatcher missed it
  EXPECT_EQ(r.completed, 0u);
  EXPECT_EQ(completed.load(), 0u);
}

std::atomic<int> g_setups{0}, g_teardowns{0};
int fail_on_thread_two(int index) {
  g_setups.fetch_add(1);
  return index == 2 ? -1 : 0;
}
void count_teardown() { g_teardowns.fetch_add(1); }

TEST(KernelThreadServer, AFailedSetupWorkerFailsTheStartNamingTheThread) {
  quanta_app app = *quanta_spin_app();
  app.setup_worker = fail_on_thread_two;
  app.teardown = count_teardown;
  KernelThreadServerConfig config;
  config.workers = 1;
  config.options.threads_per_core = 4;
  std::atomic<uint64_t> completed{0};
  ApiSource source(4, 8, 0, 1, count_completion, &completed, 4);
  KernelThreadServer server(config, app);
  server.add_source(source);
  try {
    server.start("");
    FAIL() << "a setup_worker that failed did not fail the start";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("pool thread 2"), std::string::npos) << e.what();
  }
  EXPECT_EQ(g_setups.load(), 4);
  EXPECT_EQ(g_teardowns.load(), 1);  // the app's setup ran, so its teardown did too
  EXPECT_FALSE(server.running());
}

TEST(KernelThreadServer, BadConfigurationNamesTheOption) {
  KernelThreadServerConfig config;
  config.workers = max_workers() + 1;
  EXPECT_THROW(KernelThreadServer(config, *quanta_spin_app()), std::invalid_argument);
  config.workers = 1;
  config.options.threads_per_core = 0;
  try {
    KernelThreadServer server(config, *quanta_spin_app());
    FAIL() << "0 threads per core was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--threads-per-core"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace quanta
