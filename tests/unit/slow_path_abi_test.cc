// The probes' slow paths keep their promise to the pass (docs/pass-internals.md,
// "Slow-path convention"): quanta_probe_slow() and quanta_flag_probe_slow() are called
// with preserve_most, so every general-purpose register but r11 must hold after the call
// what it held before, even when the call yielded and the task came back on another
// thread, after other code ran on both. The registers are set and read by assembly around
// a bare call, as the pass's callers rely on them, not through C++ code that would save
// them itself.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "core/stack_pool.h"
#include "core/task.h"
#include "preempt/preempt_state.h"
#include "preempt/quantum_runner.h"
#include "quanta/probe.h"

namespace quanta {
namespace {

// The registers preserve_most keeps on x86-64, in the order the assembly stores them.
constexpr const char* kKept[] = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp",
                                 "r8",  "r9",  "r10", "r12", "r13", "r14", "r15"};
constexpr int kKeptCount = sizeof(kKept) / sizeof(kKept[0]);
constexpr uint64_t sentinel(int i) { return 0x5a5a000000000000ull + (uint64_t(i + 1) << 32) + 0x1234u * (i + 1); }

// Loads sentinel(i) into each kept register, calls `slow` as the pass does (no saves
// around it, a 16-byte aligned stack, below the red zone), and stores each register's
// value after the call into after[i]. The callee-saved registers of the C convention are
// saved and restored here, since this function's own callers rely on them.
#define QUANTA_CALL_WITH_SENTINELS(SYMBOL)                                                        \
  __asm__ volatile(                                                                               \
      "leaq -128(%%rsp), %%rsp\n\t"                                                               \
      "pushq %%rbp\n\tpushq %%rbx\n\tpushq %%r12\n\tpushq %%r13\n\tpushq %%r14\n\tpushq %%r15\n\t" \
      "pushq %[after]\n\t"                                                                        \
      "movq %%rsp, %%rax\n\t"                                                                     \
      "andq $-16, %%rsp\n\t"                                                                      \
      "pushq %%rax\n\t"                                                                           \
      "pushq %%rax\n\t"                                                                           \
      "movabsq %[s0], %%rax\n\tmovabsq %[s1], %%rbx\n\tmovabsq %[s2], %%rcx\n\t"                 \
      "movabsq %[s3], %%rdx\n\tmovabsq %[s4], %%rsi\n\tmovabsq %[s5], %%rdi\n\t"                 \
      "movabsq %[s6], %%rbp\n\tmovabsq %[s7], %%r8\n\tmovabsq %[s8], %%r9\n\t"                   \
      "movabsq %[s9], %%r10\n\tmovabsq %[s10], %%r12\n\tmovabsq %[s11], %%r13\n\t"               \
      "movabsq %[s12], %%r14\n\tmovabsq %[s13], %%r15\n\t"                                       \
      "call " SYMBOL "\n\t"                                                                       \
      "movq 8(%%rsp), %%r11\n\t" /* the stack pointer before the alignment */                    \
      "movq (%%r11), %%r11\n\t"  /* after */                                                      \
      "movq %%rax, 0(%%r11)\n\tmovq %%rbx, 8(%%r11)\n\tmovq %%rcx, 16(%%r11)\n\t"                 \
      "movq %%rdx, 24(%%r11)\n\tmovq %%rsi, 32(%%r11)\n\tmovq %%rdi, 40(%%r11)\n\t"               \
      "movq %%rbp, 48(%%r11)\n\tmovq %%r8, 56(%%r11)\n\tmovq %%r9, 64(%%r11)\n\t"                 \
      "movq %%r10, 72(%%r11)\n\tmovq %%r12, 80(%%r11)\n\tmovq %%r13, 88(%%r11)\n\t"               \
      "movq %%r14, 96(%%r11)\n\tmovq %%r15, 104(%%r11)\n\t"                                       \
      "movq 8(%%rsp), %%rsp\n\t"                                                                  \
      "popq %%r11\n\t"                                                                            \
      "popq %%r15\n\tpopq %%r14\n\tpopq %%r13\n\tpopq %%r12\n\tpopq %%rbx\n\tpopq %%rbp\n\t"      \
      "leaq 128(%%rsp), %%rsp\n\t"                                                                \
      :                                                                                           \
      : [after] "r"(after), [s0] "i"(sentinel(0)), [s1] "i"(sentinel(1)), [s2] "i"(sentinel(2)),   \
        [s3] "i"(sentinel(3)), [s4] "i"(sentinel(4)), [s5] "i"(sentinel(5)), [s6] "i"(sentinel(6)), \
        [s7] "i"(sentinel(7)), [s8] "i"(sentinel(8)), [s9] "i"(sentinel(9)), [s10] "i"(sentinel(10)), \
        [s11] "i"(sentinel(11)), [s12] "i"(sentinel(12)), [s13] "i"(sentinel(13))                  \
      : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory", "cc", "xmm0", "xmm1", \
        "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",   \
        "xmm13", "xmm14", "xmm15")

struct Trip {
  uint64_t after[kKeptCount] = {};
};

// Leaves a value of its own in every register a C call may clobber.
__attribute__((noinline)) void clobbering_body(Task&) {
  __asm__ volatile(
      "movq $-1, %%rax\n\tmovq $-2, %%rcx\n\tmovq $-3, %%rdx\n\tmovq $-4, %%rsi\n\t"
      "movq $-5, %%rdi\n\tmovq $-6, %%r8\n\tmovq $-7, %%r9\n\tmovq $-8, %%r10\n\t"
      :
      :
      : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10");
}

__attribute__((noinline)) void clock_slow_body(Task& task) {
  auto* after = static_cast<Trip*>(task.user)->after;
  QUANTA_CALL_WITH_SENTINELS("quanta_probe_slow@PLT");
}

__attribute__((noinline)) void flag_slow_body(Task& task) {
  auto* after = static_cast<Trip*>(task.user)->after;
  QUANTA_CALL_WITH_SENTINELS("quanta_flag_probe_slow@PLT");
}

// Runs `body` on thread A with a deadline already passed, so its slow-path call yields;
// thread B, after running a task of its own that clobbers every register, resumes it.
// `flag_checks_clock`: both threads' flag probes read the clock (no monitor), so that the
// flag slow path yields at a passed deadline as the clock one does.
void expect_registers_kept_across_a_move(Task::Body body, bool flag_checks_clock) {
  StackPool stacks(2, 64 * 1024);
  Task task;
  Trip trip;
  task.start(stacks.acquire(), body, &trip);
  std::atomic<int> phase{0};
  bool finished_first = true;
  std::thread a([&] {
    if (flag_checks_clock) check_clock_at_flag_probes();
    QuantumRunner runner;
    finished_first = runner.resume(task, 0, /*deadline_tsc=*/1);
    phase.store(1);
    while (phase.load() != 2) std::this_thread::yield();  // A lives on: B is another thread
  });
  while (phase.load() != 1) std::this_thread::yield();
  ASSERT_FALSE(finished_first) << "the slow path yields at a passed deadline";
  for (int i = 0; i < kKeptCount; ++i) EXPECT_EQ(trip.after[i], 0u) << "nothing stored before the resume";
  bool finished_second = false;
  std::thread b([&] {
    if (flag_checks_clock) check_clock_at_flag_probes();
    QuantumRunner runner;
    // Another task first, which leaves values of its own in the registers.
    Task other;
    other.start(stacks.acquire(), &clobbering_body, nullptr);
    EXPECT_TRUE(runner.resume(other, 0, QuantumRunner::kNoDeadline));
    finished_second = runner.resume(task, 0, QuantumRunner::kNoDeadline);
    stacks.release(other.stack);
  });
  b.join();
  phase.store(2);
  a.join();
  EXPECT_TRUE(finished_second);
  EXPECT_EQ(task.yields, 1u);
  for (int i = 0; i < kKeptCount; ++i)
    EXPECT_EQ(trip.after[i], sentinel(i)) << kKept[i] << " changed across the slow path";
  stacks.release(task.stack);
}

TEST(SlowPathAbi, ClockSlowPathKeepsEveryRegisterButR11AcrossAYieldAndAMove) {
  expect_registers_kept_across_a_move(&clock_slow_body, false);
}

TEST(SlowPathAbi, FlagSlowPathKeepsEveryRegisterButR11AcrossAYieldAndAMove) {
  expect_registers_kept_across_a_move(&flag_slow_body, true);
}

// Outside a task the slow paths return at once; the registers hold there too.
TEST(SlowPathAbi, SlowPathsOutsideATaskKeepEveryRegisterButR11) {
  Trip trip;
  uint64_t* after = trip.after;
  QUANTA_CALL_WITH_SENTINELS("quanta_probe_slow@PLT");
  for (int i = 0; i < kKeptCount; ++i) EXPECT_EQ(trip.after[i], sentinel(i)) << kKept[i];
  Trip flag_trip;
  after = flag_trip.after;
  QUANTA_CALL_WITH_SENTINELS("quanta_flag_probe_slow@PLT");
  for (int i = 0; i < kKeptCount; ++i) EXPECT_EQ(flag_trip.after[i], sentinel(i)) << kKept[i];
}

}  // namespace
}  // namespace quanta
