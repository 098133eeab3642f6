// A task whose flag-mode polled loop yields on one thread and is resumed on another reads
// the second thread's flag from then on. The pass keeps the flag's access in a register
// across the loop (tests/integration/polled_handler.c); that register must hold nothing
// tied to the first thread (docs/pass-internals.md, "The flag's address"). No monitor:
// each thread sets its own flag, and the test asserts whether the task yielded or ran to
// its end, never how long anything took.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "core/stack_pool.h"
#include "core/task.h"
#include "core/tsc.h"
#include "preempt/preempt_state.h"
#include "preempt/quantum_runner.h"
#include "quanta/quanta.h"

extern "C" {
int polled_app_setup(const char* config);
void polled_spin_handle(const quanta_request* request, quanta_response* response);
}

namespace quanta {
namespace {

// Long enough that a task which missed its flag runs for a while before it ends on its
// own (2^30 bytes scanned); the assertions tell that from a yield by `finished`.
constexpr uint64_t kScanBytes = 1ull << 30;

struct SpinCall {
  uint64_t payload = kScanBytes;
  quanta_request request{};
  quanta_response response{};
};

void spin_body(Task& task) {
  auto* call = static_cast<SpinCall*>(task.user);
  polled_spin_handle(&call->request, &call->response);
}

TEST(FlagMigration, APolledLoopResumedOnAnotherThreadReadsThatThreadsFlag) {
  ASSERT_EQ(polled_app_setup(nullptr), 0);
  SpinCall call;
  call.request.payload = &call.payload;
  call.request.payload_len = sizeof call.payload;
  StackPool pool(1, 256 * 1024);
  Task task;
  task.start(pool.acquire(), &spin_body, &call);

  bool finished_on_first = true;
  uint64_t yields_on_first = 0;
  // The first thread raises its own flag for quantum 1: the loop's first poll yields.
  std::thread first([&] {
    QuantumRunner runner;
    uint32_t* flag = this_thread_flag_word();
    preempt_state().flag_seq = 1;
    __atomic_store_n(flag, 1u, __ATOMIC_RELAXED);
    finished_on_first = runner.resume(task, read_tsc(), QuantumRunner::kNoDeadline);
    yields_on_first = task.yields;
    __atomic_store_n(flag, 0u, __ATOMIC_RELAXED);
  });
  first.join();
  ASSERT_FALSE(finished_on_first);
  ASSERT_EQ(yields_on_first, 1u);

  // The second thread's flag is set for good and its probes read the clock
  // (check_clock_at_flag_probes), with a deadline already passed: the loop yields at its
  // next poll if it reads this thread's flag. The first thread's word is 0 (and that
  // thread is gone): a loop still reading it would scan to the end and finish.
  bool finished_on_second = true;
  std::thread second([&] {
    check_clock_at_flag_probes();
    QuantumRunner runner;
    const uint64_t now = read_tsc();
    finished_on_second = runner.resume(task, now, now);
  });
  second.join();
  EXPECT_FALSE(finished_on_second) << "the loop kept reading the first thread's flag";
  EXPECT_EQ(task.yields, 2u);
  pool.release(task.stack);
}

}  // namespace
}  // namespace quanta
