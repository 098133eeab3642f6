// Counter loops: the function-wide budget. It starts at the bound; each latch subtracts
// what every iteration pays, each block only some iterations run subtracts its own cost
// where it runs, and when the budget goes negative a probe runs and refills it (adaptive:
// with the next gap the site aims at the deadline). A loop around a call that may return
// from a tick charges the thread's tick budget instead, the one its ticks charge; its
// blocks add to a pending charge in a register, which the latch, every call and every exit
// subtract from the thread's word.
#include "LoopPlanner.h"

#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace quanta {

// Adaptive budgets: the optional blocks that the static branch estimates (no profile here)
// give at least half the latch's frequency are charged by the latch (word_count's outer
// loop: five subtracts a word became one). Relative to the latch, which pays the charge,
// not to the header: an exit the estimates overrate (the end of the text, in word_count's
// first inner loop) lowers the header's ratio to every block after it, not the latch's.
// Cheapest first, while they add at most the mandatory cost: an iteration that skips them
// all is over-charged at most twice, and a rare expensive branch the estimates cannot tell
// from a common one (50/50 without a profile) still charges itself.
void LoopPlanner::chargeLikelyAtLatch(Loop* L, LoopPlan& p) {
  BasicBlock* latch = L->getLoopLatch();
  if (!AP_ || !latch) return;
  if (!bfi_) {
    bpi_ = std::make_unique<BranchProbabilityInfo>(F_, LI_);
    bfi_ = std::make_unique<BlockFrequencyInfo>(F_, *bpi_, LI_);
  }
  uint64_t perLatch = bfi_->getBlockFreq(latch).getFrequency();
  struct Likely {
    uint64_t charge;
    unsigned order;  // in L's block list: equal charges keep it
    BasicBlock* BB;
  };
  SmallVector<Likely, 8> likely;
  for (BasicBlock* BB : L->blocks()) {
    if (LI_.getLoopFor(BB) != L || DT_.dominates(BB, latch)) continue;
    if (2 * bfi_->getBlockFreq(BB).getFrequency() < perLatch) continue;
    if (uint64_t c = blockCharge(L, BB, false)) likely.push_back({c, unsigned(likely.size()), BB});
  }
  llvm::sort(likely, [](const Likely& a, const Likely& b) {
    return a.charge != b.charge ? a.charge < b.charge : a.order < b.order;
  });
  const uint64_t mandatory = p.mandatoryCost;
  uint64_t added = 0;
  for (auto [c, order, BB] : likely) {
    if (added + c > mandatory) break;
    added += c;
    p.chargedAtLatch.insert(BB);
  }
  p.mandatoryCost += added;
}

// Blocks of L that not every iteration runs subtract their charge from the budget where
// they end; the latch then subtracts only the mandatory cost (and the likely blocks'
// charges, chargeLikelyAtLatch).
void LoopPlanner::chargeOptionalBlocks(Loop* L) {
  BasicBlock* latch = L->getLoopLatch();
  const LoopPlan& p = plans_[L];
  SmallVector<std::pair<BasicBlock*, uint64_t>, 8> optional;
  for (BasicBlock* BB : L->blocks())
    if (LI_.getLoopFor(BB) == L && !DT_.dominates(BB, latch) && !p.chargedAtLatch.contains(BB))
      if (uint64_t c = blockCharge(L, BB, p.threadBudget)) optional.push_back({BB, c});
  for (auto [BB, c] : optional) {
    Instruction* term = BB->getTerminator();
    if (isa<CatchSwitchInst>(term) || BB->isEHPad()) continue;
    IRBuilder<> B(term);
    // The thread's budget is charged for the whole block: a probe in it does not restart
    // that budget, and a tick in it charges only its own stretch.
    if (p.threadBudget) {
      chargeBudget(B, L, B.getInt64(c));
      continue;
    }
    AllocaInst* bud = budget();
    // A block the straight-line placement probes (after a call into the function's own
    // call-graph cycle with -quanta-cycle-ticks=0, or on a path over the bound) starts a
    // fresh budget there: charging it all would make the budget probe a second time on
    // every run of that block.
    uint64_t after = 0;
    bool probed = false;
    for (Instruction& I : *BB) {
      if (isProbeMarker(I)) probed = true, after = 0;
      else after += CM_.instCost(I);
    }
    // An adaptive budget (a gap aimed at the deadline, possibly over the bound) keeps
    // what it has left if that is more.
    if (probed && after < bound_) {
      Value* fresh = B.getInt64(bound_ - after);
      if (AP_) {
        Value* left = B.CreateLoad(B.getInt64Ty(), bud);
        fresh = B.CreateSelect(B.CreateICmpSGT(left, fresh), left, fresh);
      }
      B.CreateStore(fresh, bud);
      continue;
    }
    B.CreateStore(B.CreateSub(B.CreateLoad(B.getInt64Ty(), bud), B.getInt64(c)), bud);
  }
}

void LoopPlanner::chargeBudget(IRBuilder<>& B, const Loop* owner, Value* units) {
  const LoopPlan* op = owner ? planFor(const_cast<Loop*>(owner)) : nullptr;
  if (op && op->threadBudget) {
    AllocaInst* pending = pendingCharge();
    B.CreateStore(B.CreateAdd(B.CreateLoad(B.getInt64Ty(), pending), units, "quanta.charge"), pending);
    return;
  }
  AllocaInst* bud = budget();
  B.CreateStore(B.CreateSub(B.CreateLoad(B.getInt64Ty(), bud), units), bud);
}

// The blocks of a loop on the thread's budget charge a function-local sum, not the
// thread's word: consecutive read-modify-writes of one thread-local word wait on each
// other through store-to-load forwarding, and fairymax's search function, with 85 such
// charges, spent a third of its time on and right after them. The sum reaches the word
// wherever the word is read or the sum could be lost: the latch's check (budgetLatch),
// before each call (a callee's tick or loop reads the word) and on the loop's exits.
AllocaInst* LoopPlanner::pendingCharge() {
  if (pending_) return pending_;
  BasicBlock& entry = F_.getEntryBlock();
  IRBuilder<> B(&entry, entry.getFirstInsertionPt());
  pending_ = B.CreateAlloca(B.getInt64Ty(), nullptr, "quanta.pending");
  B.CreateStore(B.getInt64(0), pending_);
  return pending_;
}

// The pending charge, which restarts at 0 here (its taker subtracts it from the word).
Value* LoopPlanner::takePending(IRBuilder<>& B) {
  Value* sum = B.CreateLoad(B.getInt64Ty(), pending_);
  B.CreateStore(B.getInt64(0), pending_);
  return sum;
}

void LoopPlanner::flushPending(IRBuilder<>& B) {
  Value* sum = takePending(B);
  Value* addr = PE_.tickBudgetAddress(B);
  Value* left = B.CreateAlignedLoad(B.getInt64Ty(), addr, Align(8));
  Value* flushed = B.CreateSub(left, sum, "quanta.flush");
  B.CreateAlignedStore(flushed, addr, Align(8));
  flushes_.push_back(flushed);
}

// After promotion: a flush where nothing is pending (a call right after the latch's check,
// a loop whose blocks all charge at the latch) is a read-modify-write of nothing.
void LoopPlanner::dropEmptyFlushes() {
  for (WeakVH& v : flushes_) {
    auto* sub = dyn_cast_or_null<BinaryOperator>(v);
    auto* zero = sub ? dyn_cast<ConstantInt>(sub->getOperand(1)) : nullptr;
    if (!zero || !zero->isZero()) continue;
    auto* load = cast<LoadInst>(sub->getOperand(0));
    Value* addr = load->getPointerOperand();
    for (User* U : make_early_inc_range(sub->users())) cast<Instruction>(U)->eraseFromParent();
    sub->eraseFromParent();
    load->eraseFromParent();
    if (auto* a = dyn_cast<Instruction>(addr); a && a->use_empty()) a->eraseFromParent();
  }
  flushes_.clear();
}

// A call may reach a tick or a loop on the thread's budget; a probe's marker reads only the
// clock, a tick's reads the word.
bool LoopPlanner::readsThreadBudget(const Instruction& I) const {
  auto* CB = dyn_cast<CallBase>(&I);
  if (!CB || isa<IntrinsicInst>(CB) || CB->isInlineAsm()) return false;
  return !isProbeMarker(I) || PE_.isTickMarker(&I);
}

// Where the pending charge must reach the thread's word, found before apply() splits
// blocks (LoopInfo does not learn of the blocks split in, and would take them for exits).
void LoopPlanner::findFlushPoints() {
  SmallPtrSet<BasicBlock*, 32> inBudgetLoop;
  SmallVector<BasicBlock*, 8> exits;
  for (Loop* L : postorder_) {
    if (!plans_[L].threadBudget) continue;
    inBudgetLoop.insert(L->block_begin(), L->block_end());
    L->getExitBlocks(exits);
  }
  for (BasicBlock* BB : inBudgetLoop)
    for (Instruction& I : *BB)
      if (readsThreadBudget(I)) flushBefore_.push_back(&I);
  // An inner loop's exit into a loop on the thread's budget: that loop's latch takes it.
  SmallPtrSet<BasicBlock*, 8> seen;
  for (BasicBlock* exit : exits)
    if (seen.insert(exit).second && !inBudgetLoop.contains(exit) && exit->getFirstInsertionPt() != exit->end())
      flushBefore_.push_back(&*exit->getFirstInsertionPt());
}

void LoopPlanner::flushPendingCharges() {
  if (!pending_) return;
  for (Instruction* check : threadChecks_) {
    IRBuilder<> B(check);
    check->setOperand(1, B.CreateAdd(check->getOperand(1), takePending(B)));
  }
  for (Instruction* at : flushBefore_) {
    IRBuilder<> B(at);
    flushPending(B);
  }
}

AllocaInst* LoopPlanner::budget() {
  if (budget_) return budget_;
  BasicBlock& entry = F_.getEntryBlock();
  IRBuilder<> B(&entry, entry.getFirstInsertionPt());
  budget_ = B.CreateAlloca(B.getInt64Ty(), nullptr, "quanta.budget");
  B.CreateStore(B.getInt64(bound_), budget_);
  if (AP_) budgetSite_ = AP_->newSite(F_);  // the first gap is the initial budget
  return budget_;
}

// Counter: the budget counts down on the back-edge and probes (or, adaptive, takes the
// next gap from the site) when it goes negative.
void LoopPlanner::budgetLatch(Loop* L, LoopPlan& p, BasicBlock* latch, bool singleLatch) {
  Instruction* term = latch->getTerminator();
  IRBuilder<> B(term);
  // The budget counts down: one subtract whose sign flag feeds the branch. It goes on
  // the back-edge, after the loop's own exit test, when that edge can be split: the
  // exit branch (in a search loop the one that mispredicts) then does not wait behind
  // the budget's.
  // Where several paths meet at the latch, a block of its own on the back-edge is one
  // more taken jump on each of them: the check goes to the top of the header instead
  // (still after the previous iteration's exit test). A single-path latch keeps it on
  // the split back-edge.
  bool atHeader = !latch->getSinglePredecessor();
  if (atHeader && singleLatch && latch != L->getHeader()) {
    term = &*L->getHeader()->getFirstInsertionPt();
    B.SetInsertPoint(term);
  } else {
    auto* br = dyn_cast<BranchInst>(term);
    if (br && br->isConditional() && !isa<IndirectBrInst>(term)) {
      BasicBlock* edge = SplitEdge(latch, L->getHeader(), &DT_, &LI_);
      term = edge->getTerminator();
      B.SetInsertPoint(term);
    }
  }
  if (p.threadBudget) {
    // As a tick whose charge ran before it: the iteration is charged after it ran, and a
    // clock read restarts the budget at a whole gap (adaptive: quanta_tick_gap's, nothing
    // ahead; else the bound). The store comes before the slow path (emitTick: the task may
    // resume on another thread).
    Value* addr = PE_.tickBudgetAddress(B);
    Value* n = B.CreateSub(B.CreateAlignedLoad(B.getInt64Ty(), addr, Align(8)), B.getInt64(p.mandatoryCost),
                           "quanta.left");
    threadChecks_.push_back(cast<Instruction>(n));  // takes the pending charge too (flushPendingCharges)
    Value* fire = B.CreateICmpSLT(n, B.getInt64(0), "quanta.fire");
    const bool adaptive = PE_.adaptiveTicks();  // the runtime refills the budget; else B here
    B.CreateAlignedStore(adaptive ? n : B.CreateSelect(fire, B.getInt64(bound_), n), addr, Align(8));
    Instruction* then = SplitBlockAndInsertIfThen(fire, term, false, PE_.unlikely());
    if (!adaptive) {
      mark(then);
      return;
    }
    IRBuilder<> T(then);
    PE_.emitExecCount(T);
    PE_.callTickGap(T, 0);
    ++stats_.adaptiveProbes;
    return;
  }
  AllocaInst* bud = budget();
  Value* v = B.CreateLoad(B.getInt64Ty(), bud, "quanta.left");
  Value* n = B.CreateSub(v, B.getInt64(p.mandatoryCost));
  B.CreateStore(n, bud);
  Value* fire = B.CreateICmpSLT(n, B.getInt64(0), "quanta.fire");
  Instruction* then = SplitBlockAndInsertIfThen(fire, term, false, PE_.unlikely());
  IRBuilder<> T(then);
  if (AP_) {
    // The refill is the next gap, aimed at the deadline; how far below zero the
    // budget went is part of what the last gap ran.
    Value* gap = AP_->probe(T, budgetSite_, bound_, maxGap(bound_), T.CreateNeg(n));
    T.CreateStore(gap, bud);
    ++stats_.adaptiveProbes;
    return;
  }
  T.CreateStore(B.getInt64(bound_), bud);  // refill on probe
  mark(then);
}

}  // namespace quanta
