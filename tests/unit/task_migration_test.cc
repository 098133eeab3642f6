// A task started on one thread, stopped at a yield and resumed on another finishes there
// with its stack intact: what the centralized dispatchers rely on to move preempted tasks
// between workers.
#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <atomic>
#include <csignal>
#include <thread>
#include <vector>

#include <sys/syscall.h>
#include <unistd.h>

#include "core/stack_pool.h"
#include "core/task.h"
#include "preempt/preempt_state.h"
#include "preempt/quantum_runner.h"
#include "preempt/signal_preempt.h"
#include "quanta/probe.h"
#include "quanta/quanta.h"

namespace quanta {
namespace {

// The kernel's thread id, asked afresh each time. Not std::this_thread::get_id():
// pthread_self() is declared const, so the compiler may reuse its first result after the
// yield, on the new thread; the same holds for errno's address (docs/runtime.md).
__attribute__((noinline)) long current_tid() { return syscall(SYS_gettid); }

// errno's address is per thread, and __errno_location() is declared const too: read and
// write it only in functions of their own, so that each access asks afresh.
__attribute__((noinline)) void set_errno(int value) { errno = value; }
__attribute__((noinline)) int get_errno() { return errno; }

struct Trip {
  int errno_after_move = 0;
  long started_on = 0;
  long finished_on = 0;
  uint64_t sum = 0;
  bool stack_intact = false;
};

void migrating_body(Task& task) {
  auto& trip = *static_cast<Trip*>(task.user);
  trip.started_on = current_tid();
  std::array<uint64_t, 64> on_stack{};  // lives on the task's stack across the move
  for (uint64_t i = 0; i < on_stack.size(); ++i) on_stack[i] = i * i;
  set_errno(EILSEQ);  // as a failed call would, just before a preemption
  quanta_yield();  // the first thread's scheduler gets the CPU back here
  trip.errno_after_move = get_errno();
  uint64_t sum = 0;
  bool intact = true;
  for (uint64_t i = 0; i < on_stack.size(); ++i) {
    intact = intact && on_stack[i] == i * i;
    sum += on_stack[i];
  }
  trip.sum = sum;
  trip.stack_intact = intact;
  trip.finished_on = current_tid();
}

TEST(TaskMigration, ResumesOnAnotherThreadWithItsStack) {
  StackPool stacks(1, 64 * 1024);
  Task task;
  Trip trip;
  task.start(stacks.acquire(), &migrating_body, &trip);
  // Thread A stays alive until B has run the task, so the two ids differ.
  std::atomic<int> phase{0};  // 1: A's quantum done; 2: B's quantum done
  long first = 0;
  bool finished_first = true;
  std::thread a([&] {
    QuantumRunner runner;
    first = current_tid();
    set_errno(0);
    finished_first = runner.resume(task, 0, QuantumRunner::kNoDeadline);
    EXPECT_EQ(get_errno(), 0) << "the task's errno stays the task's";
    phase.store(1);
    while (phase.load() != 2) std::this_thread::yield();
  });
  while (phase.load() != 1) std::this_thread::yield();
  ASSERT_FALSE(finished_first) << "the task yields once before it finishes";
  long second = 0;
  bool finished_second = false;
  std::thread b([&] {
    QuantumRunner runner;
    second = current_tid();
    set_errno(ENOENT);
    finished_second = runner.resume(task, 0, QuantumRunner::kNoDeadline);
    EXPECT_EQ(get_errno(), ENOENT) << "the scheduler's errno is its own after the quantum";
  });
  b.join();
  phase.store(2);
  a.join();
  EXPECT_TRUE(finished_second);
  EXPECT_EQ(trip.started_on, first);
  EXPECT_EQ(trip.finished_on, second);
  EXPECT_NE(first, second);
  EXPECT_TRUE(trip.stack_intact);
  EXPECT_EQ(trip.errno_after_move, EILSEQ) << "errno followed the task to the other thread";
  uint64_t expected = 0;
  for (uint64_t i = 0; i < 64; ++i) expected += i * i;
  EXPECT_EQ(trip.sum, expected);
  EXPECT_EQ(task.yields, 1u);
  stacks.release(task.stack);
}

// A task preempted by the preemption signal stops inside the signal handler; resumed on
// another thread, the handler returns there, and sigreturn would bring back the first
// thread's alternate signal stack. The second thread must keep its own.
std::atomic<bool> g_spinning{false};

__attribute__((noinline)) void spin_until_preempted(Task&) {
  g_spinning.store(true);
  while (g_spinning.load()) {
  }  // no probe: only the signal can stop it; the thread that resumes it ends the spin
}

// Returns the thread's previous alternate stack, to be put back before the thread ends
// (ASan unmaps the one a thread ends with, taking it for its own).
stack_t use_alt_stack(std::vector<char>& memory) {
  stack_t s{};
  s.ss_sp = memory.data();
  s.ss_size = memory.size();
  stack_t previous{};
  sigaltstack(&s, &previous);
  return previous;
}

void* current_alt_stack() {
  stack_t s{};
  sigaltstack(nullptr, &s);
  return s.ss_sp;
}

TEST(TaskMigration, AThreadKeepsItsAlternateSignalStackWhenASignalledTaskReturnsOnIt) {
  install_preempt_signal_handler();
  quanta_register_signal_safe_object(reinterpret_cast<const void*>(&spin_until_preempted));
  StackPool stacks(1, 64 * 1024);
  Task task;
  task.start(stacks.acquire(), &spin_until_preempted, nullptr);
  // Both alive until the end: distinct addresses.
  std::vector<char> a_alt(64 * 1024), b_alt_memory(64 * 1024);
  std::atomic<long> a_tid{0};
  std::atomic<int> phase{0};  // 1: preempted on A
  std::thread a([&] {
    const stack_t previous = use_alt_stack(a_alt);
    QuantumRunner runner;
    a_tid.store(syscall(SYS_gettid));
    preempt_state().signal_deadline_tsc = 0;  // any signal is for this quantum
    const bool finished = runner.resume(task, 0, QuantumRunner::kNoDeadline);
    EXPECT_FALSE(finished);
    phase.store(1);
    sigaltstack(&previous, nullptr);
  });
  while (!g_spinning.load()) std::this_thread::yield();
  syscall(SYS_tgkill, getpid(), a_tid.load(), kPreemptSignal);
  a.join();
  ASSERT_EQ(phase.load(), 1);
  void* b_alt = nullptr;
  void* b_alt_after = nullptr;
  std::thread b([&] {
    const stack_t previous = use_alt_stack(b_alt_memory);
    b_alt = current_alt_stack();
    QuantumRunner runner;
    g_spinning.store(false);  // the task ends its spin once the handler has returned
    EXPECT_TRUE(runner.resume(task, 0, QuantumRunner::kNoDeadline));
    b_alt_after = current_alt_stack();
    sigaltstack(&previous, nullptr);
  });
  b.join();
  EXPECT_EQ(b_alt, static_cast<void*>(b_alt_memory.data()));
  EXPECT_EQ(b_alt_after, b_alt) << "thread A's alternate stack is at " << static_cast<void*>(a_alt.data());
  stacks.release(task.stack);
}

}  // namespace
}  // namespace quanta
