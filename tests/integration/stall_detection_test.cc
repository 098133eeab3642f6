// Host stalls are noticed by the runtime thread that suffers them. The test plays the host:
// while the runtime idles (one request served, then none), it interrupts each of its threads with
// a signal whose handler sleeps 5 ms, a gap that thread's own code cannot explain. Each
// thread must log it; counts only.
#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/tsc.h"
#include "host_stall.h"
#include "runtime/api_source.h"
#include "runtime/runtime.h"

namespace quanta {
namespace {

constexpr long kStallNs = 5'000'000;

void sleep_in_handler(int) {
  stall_for_ns(kStallNs);
}

std::vector<int> thread_ids() {
  std::vector<int> tids;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return tids;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') tids.push_back(std::atoi(entry->d_name));
  }
  closedir(dir);
  return tids;
}

void noop(const quanta_request*, quanta_response*) {}

TEST(StallDetection, EveryRuntimeThreadLogsAStallItDidNotCause) {
  ASSERT_TRUE(stall_on_sigusr2(&sleep_in_handler));
  const quanta_app app = handler_only_app("noop", &noop);
  // The first thread a process creates may bring a sanitizer's helper thread with it
  // (ThreadSanitizer's background thread): made here, it is not taken for a runtime thread.
  std::thread([] {}).join();
  const std::vector<int> existing = thread_ids();
  const std::set<int> before(existing.begin(), existing.end());
  RuntimeConfig config;
  Runtime runtime(config, app);
  ApiSource source(16, 8, 8, 1, nullptr, nullptr, runtime.workers());
  runtime.add_source(source);
  runtime.start("");
  // One request through and back: the dispatcher and the worker that served it are in
  // their loops now (a signal that came before the dispatcher's first clock read would
  // stall a thread that has no loop yet).
  std::string why;
  const uint64_t cookie = 7;
  ASSERT_EQ(source.submit(&cookie, sizeof cookie, 0, cookie, 0, why), QUANTA_OK) << why;
  quanta_completion done{};
  while (source.poll_completions(&done, 1, why) == 0) {
  }
  ASSERT_EQ(done.cookie, cookie);
  // The runtime's threads are the ones that appeared with it.
  std::vector<int> runtime_threads;
  for (int tid : thread_ids()) {
    if (before.count(tid) == 0) runtime_threads.push_back(tid);
  }
  // EXPECT, not ASSERT: the runtime must still be stopped before the source it polls goes.
  EXPECT_EQ(runtime_threads.size(), runtime.workers() + 1u);
  for (int tid : runtime_threads) ASSERT_EQ(syscall(SYS_tgkill, getpid(), tid, SIGUSR2), 0);
  // Let every handler run and every loop come back to its clock.
  const timespec settle{0, 4 * kStallNs};
  nanosleep(&settle, nullptr);
  const RuntimeResult result = runtime.stop();
  signal(SIGUSR2, SIG_DFL);

  ASSERT_EQ(result.stalls.size(), runtime.workers() + 1u);
  EXPECT_EQ(result.stalls[0].thread, "dispatcher");
  for (const StallSummary& s : result.stalls) {
    EXPECT_GE(s.count, 1u) << s.thread;
    // The handler slept 5 ms; the gap around it is at least that.
    EXPECT_GE(s.largest_ns, 0.99 * kStallNs) << s.thread;
  }
  EXPECT_EQ(result.stall_threshold_us, config.stall_threshold_us);
}

}  // namespace
}  // namespace quanta
