// A recursive walk compiled with the pass (clock mode) is preempted about once per quantum
// of its work: the bound holds through calls, not only within each function. Counts only.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "quanta/fn.h"
#include "tree_walk.h"

namespace {

uint64_t quantum() { return static_cast<uint64_t>(2 * quanta_tsc_per_us()); }

// A complete binary tree of 2^20 - 1 nodes, laid out as a heap (children of i at 2i + 1
// and 2i + 2), depth 20.
std::vector<tree_node> CompleteTree(uint64_t nodes) {
  std::vector<tree_node> t(nodes);
  for (uint64_t i = 0; i < nodes; ++i) {
    t[i].value = i * 0x2545f4914f6cdd1dULL;
    t[i].left = 2 * i + 1 < nodes ? &t[2 * i + 1] : nullptr;
    t[i].right = 2 * i + 2 < nodes ? &t[2 * i + 2] : nullptr;
  }
  return t;
}

// The walk's work is at least nodes * 40 core cycles, some 40M: with 2 µs quanta (~5000
// TSC cycles here) about 8000 quanta, or 5000 should the core run 1.5x faster than the
// cycle counter. The test asks for an eighth of the work's quanta at that rate; a slow or
// stalled machine only adds yields (more quanta pass per node). Each call of visit() stays
// far under the bound and the walk has no long loop: charged 1 per call, as before call
// summaries (-quanta-call-summaries=0), it yielded 16 times on the dev VM, this build
// ~17500.
TEST(InstrumentedRecursion, TreeWalkIsPreemptedOncePerQuantumOfWork) {
  constexpr uint64_t kNodes = (uint64_t(1) << 20) - 1;
  std::vector<tree_node> tree = CompleteTree(kNodes);
  tree_walk_request r{&tree[0], 0};
  quanta_fn* f = quanta_fn_launch(tree_walk_handler, &r, quantum(), 0);
  ASSERT_NE(f, nullptr);
  uint64_t resumes = 0;
  while (!quanta_fn_completed(f)) {
    quanta_fn_resume(f, quantum());
    ++resumes;
  }
  const uint64_t workCycles = kNodes * TREE_WALK_MIN_CYCLES_PER_NODE * 2 / 3;
  const uint64_t expectAtLeast = workCycles / quantum() / 8;
  EXPECT_GE(expectAtLeast, 200u);  // the test is meaningful only if the walk spans many quanta
  EXPECT_GE(quanta_fn_yields(f), expectAtLeast);
  EXPECT_EQ(quanta_fn_yields(f), resumes);
  quanta_fn_destroy(f);

  tree_walk_request plain{&tree[0], 0};
  plain_tree_walk_handler(&plain);
  EXPECT_EQ(r.result, plain.result);  // probes change when it runs, not what it computes
}

// The same kind of walk, counted: each call of visit() is far shorter than the bound
// B = 1000 and runs no clock probe of its own before it recurses, so the descent reaches
// clock reads only through the entry ticks; and each recursive call may return from a tick,
// so the unwinding reaches them only through the ticks after those calls (a clock probe
// after each of them with -quanta-cycle-ticks=0: 2 per node). Every call ticks at entry,
// every node twice more after its calls, and the walk's root function once after its call:
// every probe executed is a tick. Outside a task: the reads happen (and never yield)
// whatever the time, so the counts are exact.
void ExpectOnlyTicks(uint64_t calls, uint64_t nodes) {
  EXPECT_EQ(calls, 2 * nodes + 1);  // each node and each null child
  EXPECT_EQ(quanta_stat_ticks_executed, calls + 2 * nodes + 1);
  EXPECT_EQ(quanta_stat_probes_executed, quanta_stat_ticks_executed);  // no clock probe
}

void ResetCounts() {
  quanta_stat_probes_executed = 0;
  quanta_stat_ticks_executed = 0;
  quanta_stat_tick_clock_reads = 0;
}

// With fixed refills (-quanta-adaptive=0) the ticks' charges (at least the 24 units of
// mixing a node does before recursing) add up to a clock read at least every B / 24 node
// visits, and the budget spares most ticks the read.
TEST(InstrumentedRecursion, ShortCallsReachClockReadsThroughTicks) {
  constexpr uint64_t kNodes = (uint64_t(1) << 16) - 1;
  std::vector<tree_node> tree = CompleteTree(kNodes);
  fixed_tick_walk_calls = 0;
  ResetCounts();
  fixed_tick_walk(&tree[0]);
  ExpectOnlyTicks(fixed_tick_walk_calls, kNodes);
  EXPECT_GE(quanta_stat_tick_clock_reads, kNodes / (1000 / 24));
  EXPECT_LE(quanta_stat_tick_clock_reads * 4, quanta_stat_ticks_executed);
}

// With adaptive refills (the default) a read refills the budget with a gap planned from the
// thread's speed, never more than the longest gap (64 B = 64,000 units): the charges still
// reach a read at least every 64,000 / 24 node visits, however fast or slow the machine.
TEST(InstrumentedRecursion, AdaptiveTickRefillsStayWithinTheLongestGap) {
  constexpr uint64_t kNodes = (uint64_t(1) << 16) - 1;
  std::vector<tree_node> tree = CompleteTree(kNodes);
  tick_walk_calls = 0;
  ResetCounts();
  uint64_t adaptive = tick_walk(&tree[0]);
  ExpectOnlyTicks(tick_walk_calls, kNodes);
  EXPECT_GE(quanta_stat_tick_clock_reads, kNodes / (64 * 1000 / 24));
  EXPECT_EQ(adaptive, fixed_tick_walk(&tree[0]));  // the same walk
}

}  // namespace
