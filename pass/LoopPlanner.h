// Loop handling: decides, per loop, how its back-edge reaches a probe often enough without
// paying a probe per iteration, then rewrites the IR.
//
//  Static   constant max trip count and the whole loop fits under the bound: nothing.
//  Version  innermost loop with a trip count known at entry: a probe-free clone runs when
//           trip * cost fits under the bound (the short-loop fast path), the original,
//           strided, otherwise. In a nest, the fast path adds trip * cost to the budget.
//  IVStride probe every N iterations, N a power of two, tested on the loop's own
//           induction variable: ((iv.next - start) & mask) == 0. No extra register.
//           Clock mode with adaptation: iv.next == probe.at, where probe.at is set by each
//           probe to where the deadline will be (AdaptiveProbe.h); one register.
//  Counter  a function-wide budget (SSA after promotion) starts at the bound; each latch
//           subtracts the cost every iteration pays, each block only some iterations run
//           subtracts its own, and once it goes negative the latch probes and refills it.
//           Used for loops whose children report dynamic costs (a short-loop fast path, a
//           strided child; children that keep the budget themselves leave the parent on
//           its IV), loops without an induction variable, and loops whose common path
//           costs less than half their longest.
//           Clock mode with adaptation: the refill is the adaptive gap, in cost units.
//  Every    the body alone is at least half the bound: probe on each back-edge.
//  Poll     flag mode, a loop with branches of its own and no calls: the flag is read on
//           every back-edge through a pointer kept in a register. A check that
//           never fires is always predicted; a stride's occasional taken branch is not, in a
//           loop whose other branches follow the data. Child loops keep their own probes,
//           reading the same register.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "AdaptiveProbe.h"
#include "Config.h"
#include "CostModel.h"
#include "ProbeEmitter.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/ValueHandle.h"

namespace llvm {
class OptimizationRemarkEmitter;
}

namespace quanta {

struct LoopPlan {
  enum Kind { Static, Version, IVStride, Counter, Every, Poll };
  Kind kind = Counter;
  Kind slowKind = Counter;  // Version: how the original (long-trip) loop is strided
  uint64_t iterCost = 1;    // longest path through one iteration
  // Counter: what every iteration costs (the blocks on all its paths); the blocks only some
  // iterations run charge the budget themselves, so a cheap common path is not billed for
  // a rare expensive branch.
  uint64_t mandatoryCost = 1;
  // Counter, adaptive: blocks that most iterations run without dominating the latch. The
  // latch charges them with the mandatory cost (included in it), so they subtract nothing
  // themselves: one subtract per iteration instead of one per block, at the price of
  // over-charging the iterations that skip them. An adaptive gap measures its speed in
  // cycles per unit, so a fixed mix of over-charges costs it no precision.
  llvm::SmallPtrSet<llvm::BasicBlock*, 8> chargedAtLatch;
  // Counter around a call that may return from a tick: the loop charges the thread's tick
  // budget (quanta_tick_budget), not the function's, and its latch checks it as a tick
  // does (LoopBudget.cpp: chargeBudget, budgetLatch).
  bool threadBudget = false;
  uint64_t staticCost = 0;  // Static: cost of the whole loop
  uint64_t stride = 1;      // IVStride: iterations per probe (power of two)
  llvm::PHINode* iv = nullptr;
  llvm::Value* ivStart = nullptr;
  llvm::Value* ivNext = nullptr;
  unsigned stepZeros = 0;   // trailing zero bits of the IV step
  int64_t step = 0;         // the IV step
  const llvm::SCEV* btc = nullptr;
  bool pollAtLatch = false;  // Poll: read the flag on the back-edge rather than at the top
  // Every, in a function on a call-graph cycle (clock, ticks): a tick charging the
  // iteration's cost on the back-edge instead of a clock probe (LoopPlanner::plan).
  bool latchTick = false;
  const char* why = "";      // the rule that chose `kind`, for remarks and print<quanta-plan>
};

// A latch's exit test: the loop goes round while `x stay end` (matchExitTest).
struct ExitTest {
  llvm::BranchInst* br = nullptr;
  llvm::ICmpInst* cmp = nullptr;
  llvm::Value* x = nullptr;    // affine in the loop
  llvm::Value* end = nullptr;  // loop-invariant
  llvm::ICmpInst::Predicate stay = llvm::ICmpInst::ICMP_NE;
  int64_t step = 0;            // x's step
  const llvm::SCEV* start = nullptr;  // x's first value (general matches only)
  bool noWrapFromEnd = false;  // relational: end + the widest gap's steps cannot wrap
  unsigned exitIdx = 0;        // which successor of br leaves
  llvm::BasicBlock* exit = nullptr;
};

struct LoopStats {
  unsigned statics = 0, versioned = 0, ivStrided = 0, counted = 0, every = 0, polled = 0;
  unsigned adaptiveProbes = 0;  // probe sites expanded here (quanta_clock_gap calls), not markers
};

// Nearest power of two (in log scale): flooring alone would probe up to twice as often as
// the bound asks.
inline uint64_t nearPow2(uint64_t x) {
  if (x <= 1) return x;
  uint64_t lo = uint64_t(1) << llvm::Log2_64(x);
  return (x - lo < 2 * lo - x) ? lo : 2 * lo;
}

class LoopPlanner {
 public:
  LoopPlanner(llvm::Function& F, llvm::LoopInfo& LI, llvm::ScalarEvolution& SE,
              llvm::DominatorTree& DT, const CostModel& CM, const Config& cfg, ProbeEmitter& PE,
              uint64_t bound, bool allowVersioning, AdaptiveProbe* adaptive);

  // Post-call ticks (Placement.cpp) will follow the calls that may return from a tick: a
  // loop around one keeps the budget they restart, or probes every iteration.
  void expectCallTicks(bool indirectReenters) {
    callTicks_ = true;
    indirectReenters_ = indirectReenters;
  }
  // The function is on a call-graph cycle and starts with a tick: its Every loops tick.
  void tickEveryLoops() { everyTicks_ = true; }
  void plan();
  // A Counter loop that would need a clock read before it in a function on a call-graph
  // cycle (Placement.cpp, loopEntry) charges the thread's budget instead, as a loop around
  // a call that may return from a tick does.
  void chargeThreadBudget(llvm::Loop* L);
  // Cost a straight-line walk should charge on entering L from outside, beyond the header
  // block itself (a Static loop's whole run).
  uint64_t entryExtra(llvm::Loop* L) const;
  uint64_t iterCost(llvm::Loop* L) const;
  const LoopPlan* planFor(llvm::Loop* L) const;
  // Rewrites the loops as planned; each plan is told to `ORE` (Decisions.h), if given.
  void apply(llvm::OptimizationRemarkEmitter* ORE = nullptr);
  const LoopStats& stats() const { return stats_; }
  uint64_t bound() const { return bound_; }
  // Loops in planning order (children first), for print<quanta-plan>.
  llvm::ArrayRef<llvm::Loop*> loops() const { return postorder_; }
  // The function's loop budget, if any loop uses one (an alloca until promoted).
  llvm::AllocaInst* budgetSlot() const { return budget_; }
  // What loops on the thread's budget have charged and not yet subtracted from it, if any
  // (an alloca until promoted; LoopBudget.cpp: pendingCharge).
  llvm::AllocaInst* pendingSlot() const { return pending_; }
  // After the pending charge is promoted: removes the flushes that subtract a constant 0.
  void dropEmptyFlushes();
  // The polled loops' flag address, if any (an alloca until promoted).
  llvm::AllocaInst* flagAddressSlot() const { return flagSlot_; }
  // The loops' distances to their next probes, kept across entries (allocas until promoted).
  llvm::ArrayRef<llvm::AllocaInst*> leftSlots() const { return leftSlots_; }

 private:
  uint64_t computeIterCost(llvm::Loop* L);
  // Cost charged when `BB` (a block of L itself) runs: its own instructions, plus the whole
  // run of a Static child loop it is the preheader of. `threadBudget`: all of it, a call
  // that may return from a tick counting its own unit and the callee's unprobed start
  // (the thread's budget charges the whole iteration); otherwise only what follows the
  // block's last such call (ticks after calls, Placement.cpp).
  uint64_t blockCharge(llvm::Loop* L, llvm::BasicBlock* BB, bool threadBudget) const;
  uint64_t computeMandatoryCost(llvm::Loop* L, bool threadBudget) const;
  void useThreadBudget(llvm::Loop* L, LoopPlan& p) const;
  // With call ticks: BB's last call that may return from a tick (null: none).
  const llvm::CallBase* lastTickedCall(llvm::BasicBlock* BB) const;
  // Finds the calls that may return from a tick (tickedCalls_), once, in plan().
  void findTickedCalls();
  bool isTickedCall(const llvm::Instruction& I) const;
  bool hasTickedCall(llvm::Loop* L) const;
  void chargeOptionalBlocks(llvm::Loop* L);
  // Subtracts `units` from the budget `owner` keeps (the thread's, or the function's).
  void chargeBudget(llvm::IRBuilder<>& B, const llvm::Loop* owner, llvm::Value* units);
  void chargeLikelyAtLatch(llvm::Loop* L, LoopPlan& p);
  bool findIV(llvm::Loop* L, LoopPlan& p, uint64_t stride);
  bool canVersion(llvm::Loop* L, LoopPlan& p);
  void versionLoop(llvm::Loop* L, LoopPlan& p);
  void strideLatch(llvm::Loop* L, LoopPlan& p, LoopPlan::Kind kind);
  // LoopBudget.cpp
  void budgetLatch(llvm::Loop* L, LoopPlan& p, llvm::BasicBlock* latch, bool singleLatch);
  llvm::AllocaInst* budget();
  llvm::AllocaInst* pendingCharge();
  llvm::Value* takePending(llvm::IRBuilder<>& B);
  // Subtracts the pending charge from the thread's budget: before every call in a loop on
  // that budget, and on the loop's exits.
  void flushPending(llvm::IRBuilder<>& B);
  void findFlushPoints();
  void flushPendingCharges();
  bool readsThreadBudget(const llvm::Instruction& I) const;
  void ivLatch(llvm::Loop* L, LoopPlan& p, llvm::BasicBlock* latch);
  bool accountsEntries(llvm::Loop* L) const;
  bool chargesParent(llvm::Loop* L) const;
  // Runs `emit(builder, from)` on every edge from a block of `exiting` out of L.
  void onExitEdges(llvm::Loop* L, llvm::ArrayRef<llvm::BasicBlock*> exiting,
                   llvm::function_ref<void(llvm::IRBuilder<>&, llvm::BasicBlock*)> emit);
  // `ivAt(from)`: the IV value an exit from `from` counts the entry's iterations with.
  void chargeParentOnExits(llvm::Loop* L, llvm::ArrayRef<llvm::BasicBlock*> exiting, const LoopPlan& p,
                           llvm::function_ref<llvm::Value*(llvm::BasicBlock*)> ivAt);
  llvm::SmallVector<llvm::BasicBlock*, 4> exitingBlocksBesides(llvm::Loop* L, llvm::BasicBlock* latch) const;
  // `off`: what the probe's IV values add to the IV (null: nothing).
  void saveLeftOnExits(llvm::Loop* L, llvm::ArrayRef<llvm::BasicBlock*> exiting, llvm::AllocaInst* slot,
                       llvm::PHINode* at, llvm::PHINode* iv, llvm::Value* off = nullptr);
  // `aheadSteps`: how many steps ahead a probe may be set (0: the plan's stride).
  bool matchExitTest(llvm::Loop* L, llvm::BasicBlock* latch, const LoopPlan& p, bool general,
                     ExitTest& t, uint64_t aheadSteps = 0) const;
  bool shareableExitTest(llvm::Loop* L, llvm::BasicBlock* latch, const LoopPlan& p, ExitTest& t,
                         bool& shifted) const;
  bool adaptiveExitLatch(llvm::Loop* L, LoopPlan& p, llvm::BasicBlock* latch);
  // Clock mode's counted loops share their exit compare with the probe (-quanta-merge-exit).
  bool sharesExitTests() const { return cfg_.mode == Mode::Clock && cfg_.compare.mergeExit; }
  // A loop's distance to its next probe while it is not running (an alloca until promoted).
  llvm::AllocaInst* leftSlot(int64_t initialLeft);
  bool canPoll(llvm::Loop* L) const;
  bool inPollNest(llvm::Loop* L) const;
  void pollFlag(llvm::Loop* L);
  // Drops a probe marker; inside a polled nest, one that reads the flag address's slot.
  void mark(llvm::Instruction* pos);
  llvm::AllocaInst* flagSlot();
  uint64_t maxGap(uint64_t staticGap) const { return staticGap * cfg_.maxStrideFactor; }

  llvm::Function& F_;
  llvm::LoopInfo& LI_;
  llvm::ScalarEvolution& SE_;
  llvm::DominatorTree& DT_;
  const CostModel& CM_;
  ProbeEmitter& PE_;
  const Config& cfg_;
  AdaptiveProbe* AP_;  // clock mode with adaptation, else null
  llvm::Value* budgetSite_ = nullptr;
  uint64_t bound_;
  bool allowVersioning_;
  std::map<llvm::Loop*, LoopPlan> plans_;
  llvm::SmallVector<llvm::Loop*, 16> postorder_;
  llvm::AllocaInst* budget_ = nullptr;
  llvm::AllocaInst* pending_ = nullptr;
  llvm::SmallVector<llvm::Instruction*, 4> threadChecks_;  // the thread-budget latches' subtracts
  llvm::SmallVector<llvm::Instruction*, 16> flushBefore_;  // findFlushPoints
  llvm::SmallVector<llvm::WeakVH, 16> flushes_;            // each flush's subtract
  std::unique_ptr<llvm::BlockFrequencyInfo> bfi_;  // for chargeLikelyAtLatch, built on first use
  std::unique_ptr<llvm::BranchProbabilityInfo> bpi_;
  llvm::AllocaInst* flagSlot_ = nullptr;
  llvm::SmallVector<llvm::AllocaInst*, 4> leftSlots_;
  bool markingPollNest_ = false;  // apply(): the loop being rewritten is in a polled nest
  bool callTicks_ = false, indirectReenters_ = false, everyTicks_ = false;
  // With call ticks: the calls that may return from a tick, and what each charges a loop
  // that keeps the thread's budget (blockCharge).
  llvm::DenseMap<const llvm::Instruction*, uint64_t> tickedCalls_;
  LoopStats stats_;
};

}  // namespace quanta
