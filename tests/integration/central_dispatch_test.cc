// Centralized dispatch (central, jbsq:K, and steal on the same machinery) in the real
// runtime: every request accounted for, JBSQ's bound on each worker, tasks that migrate
// between workers still compute what they would have computed in one go, and the
// dispatcher's own work. Counts only, no times.
#include <gtest/gtest.h>

#include <array>
#include <atomic>

#include "policy/local_policy.h"
#include "runtime/cpu_layout.h"
#include "experiment/in_process_run.h"
#include "spin_app.h"
#include "test_apps.h"

namespace quanta {
namespace {

RunConfig central_config(const std::string& dispatch, const std::string& local = "ps") {
  RunConfig c;
  c.workload = "bimodal:90:1:50";
  c.dispatch_policy = dispatch;
  c.local_policy = local;
  c.load = 0.3;
  c.duration_s = 0.1;
  c.warmup_frac = 0;
  c.quantum_us = 5;
  return c;
}

RunResult run_spin(const RunConfig& c) {
  return run_in_process(c, Workload::parse(c.workload), *quanta_spin_app_for(c.preempt.c_str()));
}

TEST(CentralDispatch, EveryRequestIsAccountedForUnderEveryLocalPolicy) {
  for (const char* dispatch : {"central", "jbsq:1", "jbsq:2", "steal"}) {
    for (const auto& local : local_policy_names()) {
      const RunConfig c = central_config(dispatch, local);
      const RunResult r = run_spin(c);
      EXPECT_GT(r.dispatch.generated, 0u) << dispatch << "/" << local;
      EXPECT_EQ(r.completed, r.dispatch.generated) << dispatch << "/" << local;
      EXPECT_EQ(r.dispatch.dropped, 0u);
      EXPECT_EQ(r.app_errors, 0u);
      uint64_t measured = 0;
      for (const auto& cls : r.classes) measured += cls.sojourn_ns.count();
      EXPECT_EQ(measured, r.completed) << "warm-up 0: every request is measured";
      if (local == "fcfs") {
        EXPECT_EQ(r.requeued, 0u) << "run to completion: nothing goes back to the queue";
      } else {
        EXPECT_GT(r.requeued, 0u) << dispatch << "/" << local << ": 50 us requests, 5 us quanta";
      }
    }
  }
}

TEST(CentralDispatch, EveryMechanismPreemptsThroughTheCentralQueue) {
  for (const char* preempt : {"clock", "flag", "signal", "hybrid", "none"}) {
    RunConfig c = central_config("jbsq:2");
    c.workload = "bimodal:90:5:500";
    c.quantum_us = 50;  // a signal costs the worker ~10 us here
    c.backstop_us = 100;
    c.preempt = preempt;
    c.duration_s = 0.2;
    const RunResult r = run_spin(c);
    EXPECT_EQ(r.completed, r.dispatch.generated) << preempt;
    if (std::string(preempt) == "none") {
      EXPECT_EQ(r.requeued, 0u);
    } else {
      EXPECT_GT(r.requeued, r.classes[1].sojourn_ns.count()) << preempt << ": 500 us requests, 50 us quanta";
    }
  }
}

TEST(CentralDispatch, DroppedArrivalsAreCountedWhenEverySlotIsTaken) {
  RunConfig c = central_config("jbsq:2");
  c.load = 3.0;  // far beyond capacity: the shared slots fill up
  c.task_slots = 2;
  c.on_full = "drop";
  const RunResult r = run_spin(c);
  EXPECT_GT(r.dispatch.dropped, 0u);
  EXPECT_EQ(r.completed + r.dispatch.dropped, r.dispatch.generated);
}

// JBSQ(K) hands a worker at most K requests, running included; under overload the bound
// is reached, so the check below could fail if the dispatcher overfilled a worker.
TEST(CentralDispatch, JbsqNeverHoldsMoreThanKPerWorker) {
  for (const uint32_t k : {1u, 2u, 4u}) {
    RunConfig c = central_config("jbsq:" + std::to_string(k));
    c.load = 1.5;
    const RunResult r = run_spin(c);
    EXPECT_EQ(r.completed, r.dispatch.generated);
    EXPECT_EQ(r.max_outstanding, k) << "overloaded: every worker is kept at its bound, never above";
  }
  const RunResult central = run_spin([] {
    RunConfig c = central_config("central");
    c.load = 1.5;
    return c;
  }());
  EXPECT_EQ(central.max_outstanding, 1u) << "central: an idle worker takes the head";
}

// A handler that computes a checksum in many probe-separated steps, keeping part of its
// state in an array on its own stack, then computes the same checksum again with
// preemption disabled (one go, no switch) and reports a mismatch as an error status. It
// also counts requests that finished on a different worker than they started on.
std::atomic<uint64_t> g_moved{0};

uint64_t mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0x9e3779b97f4a7c15ull;
  return x ^ (x >> 29);
}

uint64_t checksum(uint64_t seed, uint64_t steps, bool with_probes) {
  std::array<uint64_t, 32> window{};
  uint64_t x = seed;
  for (uint64_t i = 0; i < steps; ++i) {
    x = mix(x + window[i % window.size()]);
    window[i % window.size()] = x;
    if (with_probes && i % 16 == 0) quanta_probe();
  }
  for (const uint64_t w : window) x ^= w;
  return x;
}

void checksum_handle(const quanta_request* request, quanta_response* response) {
  const int started_on = quanta_worker_index();
  // About the workload's 1 us and 50 us, so the offered load is what the test asks.
  const uint64_t steps = request->class_index == 0 ? 300 : 16'000;
  const uint64_t preemptible = checksum(request->id, steps, true);
  quanta_preempt_disable();
  const uint64_t in_one_go = checksum(request->id, steps, false);
  quanta_preempt_enable();
  if (quanta_worker_index() != started_on) g_moved.fetch_add(1);
  response->status = preemptible == in_one_go ? 0 : 1;
  response->value = preemptible;
}

const quanta_app kChecksumApp = testing::spin_payload_app("checksum", &checksum_handle);

TEST(CentralDispatch, MigratedTasksComputeTheSameChecksum) {
  for (const char* dispatch : {"central", "steal"}) {
    RunConfig c = central_config(dispatch);
    // Two workers at least, even on a 2-CPU machine: threads then share CPUs, which makes
    // the run slow but does not change what it computes.
    c.workers = 2;
    c.oversubscribe = max_workers() < 2;
    c.load = 0.5;
    c.duration_s = 0.2;
    c.quantum_us = 2;
    g_moved = 0;
    const RunResult r = run_in_process(c, Workload::parse(c.workload), kChecksumApp);
    EXPECT_EQ(r.completed, r.dispatch.generated) << dispatch;
    EXPECT_EQ(r.app_errors, 0u) << dispatch << ": a task that moved computed a different checksum";
    EXPECT_GT(r.migrations, 0u) << dispatch << ": preempted tasks resumed on the other worker";
    EXPECT_GT(g_moved.load(), 0u) << dispatch << ": some requests started on one worker and finished on the other";
    if (std::string(dispatch) == "steal") EXPECT_GT(r.steals, 0u) << "an idle worker took from the other's queue";
  }
}

TEST(CentralDispatch, DispatcherRunsRequestsWhenEveryWorkerIsFull) {
  RunConfig c = central_config("jbsq:1");
  c.dispatcher_works = true;
  c.load = 1.2;  // more than the workers can take: the dispatcher must help
  const RunResult r = run_spin(c);
  EXPECT_EQ(r.completed, r.dispatch.generated);
  EXPECT_GT(r.dispatcher_requests, 0u);
  EXPECT_LT(r.dispatcher_requests, r.completed);
  EXPECT_EQ(r.app_errors, 0u);
}

// Clock probes end the dispatcher's own quanta: clock, hybrid, or under flag the spin
// handler's clock twin (tests/integration/flag_twin_test.cc); signal and none have none.
TEST(CentralDispatch, DispatcherWorksNeedsACentralPolicyAndClockProbes) {
  RunConfig c = central_config("jsq-msq");
  c.dispatcher_works = true;
  EXPECT_THROW(run_spin(c), std::invalid_argument);
  c.dispatch_policy = "central";
  for (const char* preempt : {"signal", "none"}) {
    c.preempt = preempt;
    EXPECT_THROW(run_spin(c), std::invalid_argument) << preempt;
  }
  c.preempt = "flag";
  c.load = 1.2;
  const RunResult r = run_spin(c);
  EXPECT_EQ(r.completed, r.dispatch.generated);
  EXPECT_GT(r.dispatcher_requests, 0u);
}

}  // namespace
}  // namespace quanta
