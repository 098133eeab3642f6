// The runtime's signal handlers take only what is theirs and pass the rest on to the
// handlers the application installed before them. Each case runs in a fresh process (a
// "threadsafe" death test re-executes the binary), where no handler of the runtime's is
// installed yet.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "core/stack_pool.h"
#include "preempt/signal_preempt.h"

namespace quanta {
namespace {

std::atomic<int> g_app_segv{0};
std::atomic<int> g_app_urg{0};
char* g_page = nullptr;

// The application's own SIGSEGV use: a page it protects and opens on first touch.
void app_segv(int, siginfo_t* info, void*) {
  if (static_cast<char*>(info->si_addr) == g_page) {
    mprotect(g_page, static_cast<size_t>(sysconf(_SC_PAGESIZE)), PROT_READ | PROT_WRITE);
    ++g_app_segv;
    return;
  }
  _exit(3);
}

void app_urg(int) { ++g_app_urg; }

void a_fault_outside_task_stacks_reaches_the_apps_handler() {
  struct sigaction action {};
  action.sa_sigaction = &app_segv;
  action.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &action, nullptr);
  install_stack_overflow_reporter();  // after the application's
  g_page = static_cast<char*>(mmap(nullptr, static_cast<size_t>(sysconf(_SC_PAGESIZE)), PROT_NONE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  *reinterpret_cast<volatile char*>(g_page) = 42;  // faults once, then the app opened the page
  _exit(g_app_segv.load() == 1 && g_page[0] == 42 ? 0 : 1);
}

void a_preemption_signal_not_sent_by_the_runtime_reaches_the_apps_handler() {
  signal(SIGURG, &app_urg);
  install_preempt_signal_handler();
  kill(getpid(), SIGURG);  // from "outside": SI_USER
  const int after_kill = g_app_urg.load();
  // The runtime's own kind (tgkill from this process) is the runtime's: outside a task it
  // is stale and dropped, not passed on.
  syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGURG);
  _exit(after_kill == 1 && g_app_urg.load() == 1 && signal_counters().stale == 1 ? 0 : 1);
}

TEST(SignalChainDeathTest, FaultsThatAreNotStackOverflowsGoToTheApplicationsHandler) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(a_fault_outside_task_stacks_reaches_the_apps_handler(), testing::ExitedWithCode(0), "");
}

TEST(SignalChainDeathTest, PreemptionSignalsFromElsewhereGoToTheApplicationsHandler) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(a_preemption_signal_not_sent_by_the_runtime_reaches_the_apps_handler(), testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace quanta
