// IVStride loops: a probe every N iterations, tested on the loop's induction variable
// against probe.at, the IV value of the next probe, with the distance to it kept across
// entries (or, under a parent keeping the budget, charged to that budget on exit).
#include "LoopPlanner.h"

#include "llvm/Analysis/CFG.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace quanta {

AllocaInst* LoopPlanner::leftSlot(int64_t initialLeft) {
  BasicBlock& entry = F_.getEntryBlock();
  IRBuilder<> B(&entry, entry.getFirstInsertionPt());
  AllocaInst* slot = B.CreateAlloca(B.getInt64Ty(), nullptr, "quanta.left");
  B.SetInsertPoint(slot->getNextNode());
  B.CreateStore(B.getInt64(initialLeft), slot);
  leftSlots_.push_back(slot);
  return slot;
}

// A loop inside another must account for its entries: the parent charges nothing for the
// child's iterations (the child probes itself), so a child entered again and again for
// fewer iterations than its stride would otherwise never probe, and the parent's probes
// would be B/(parent's own cost) parent iterations apart, each with up to a child's stride
// inside. Directly under a loop that probes (or polls) on every iteration, that bounds it
// already. How it accounts: chargesParent, else a distance carried across entries.
bool LoopPlanner::accountsEntries(Loop* L) const {
  Loop* parent = L->getParentLoop();
  return parent && planFor(parent)->kind != LoopPlan::Poll && planFor(parent)->kind != LoopPlan::Every;
}

// Fixed strides under a parent that keeps the function's budget: each entry starts a whole
// stride of its own, and every exit charges the parent's budget for the iterations the
// entry ran, so the parent's probes space the short entries. Adaptive sites carry their
// distance instead: their gaps are planned by time, which runs on across entries (a
// fresh stride per entry made each long entry of matmul's inner loops probe early, ~20
// probes per quantum; starting at the site's gap instead ended quanta late, its count
// restarting where the time did not).
bool LoopPlanner::chargesParent(Loop* L) const {
  Loop* parent = L->getParentLoop();
  return !AP_ && parent && planFor(parent)->kind == LoopPlan::Counter;
}

void LoopPlanner::onExitEdges(Loop* L, ArrayRef<BasicBlock*> exiting,
                              function_ref<void(IRBuilder<>&, BasicBlock*)> emit) {
  if (exiting.empty()) return;
  DT_.recalculate(F_);  // the probe's blocks were split in without it
  for (BasicBlock* from : exiting) {
    Instruction* term = from->getTerminator();
    if (!isa<BranchInst>(term) && !isa<SwitchInst>(term)) continue;  // invoke, callbr: not split
    SmallVector<BasicBlock*, 2> outside;
    for (BasicBlock* to : successors(from))
      if (!L->contains(to) && !is_contained(outside, to)) outside.push_back(to);
    for (BasicBlock* to : outside) {
      BasicBlock* edge = nullptr;
      if (to->getSinglePredecessor() == from) {
        edge = to;  // only this block leads there: its top is the edge
      } else {
        auto opts = CriticalEdgeSplittingOptions(&DT_, &LI_).setMergeIdenticalEdges().setPreserveLCSSA();
        edge = SplitCriticalEdge(term, GetSuccessorNumber(from, to), opts);
      }
      if (!edge) continue;
      IRBuilder<> EB(&*edge->getFirstInsertionPt());
      emit(EB, from);
    }
  }
}

// The iterations an entry ran, (iv - start) / step, times the loop's iteration cost.
void LoopPlanner::chargeParentOnExits(Loop* L, ArrayRef<BasicBlock*> exiting, const LoopPlan& p,
                                      function_ref<Value*(BasicBlock*)> ivAt) {
  onExitEdges(L, exiting, [&](IRBuilder<>& B, BasicBlock* from) {
    Value* iv = ivAt(from);
    Value* d = B.CreateSub(iv, p.ivStart);
    if (p.step != 1) d = B.CreateExactSDiv(d, ConstantInt::get(iv->getType(), p.step, /*isSigned=*/true));
    Value* units = B.CreateMul(B.CreateSExtOrTrunc(d, B.getInt64Ty()), B.getInt64(p.iterCost), "quanta.entry.cost");
    chargeBudget(B, L->getParentLoop(), units);
  });
}

SmallVector<BasicBlock*, 4> LoopPlanner::exitingBlocksBesides(Loop* L, BasicBlock* latch) const {
  SmallVector<BasicBlock*, 4> exiting;
  L->getExitingBlocks(exiting);
  llvm::erase(exiting, latch);
  return exiting;
}

// Exits taken during an iteration (not from quanta.hit, which saves its own): each saves
// how far the next probe is from that iteration's IV, so the next entry goes on counting
// from there. (An exit block may be shared with a versioned loop's fast clone: the store
// goes on the edge.)
void LoopPlanner::saveLeftOnExits(Loop* L, ArrayRef<BasicBlock*> exiting, AllocaInst* slot, PHINode* at,
                                  PHINode* iv, Value* off) {
  onExitEdges(L, exiting, [&](IRBuilder<>& B, BasicBlock*) {
    Value* x = off ? B.CreateAdd(iv, off) : static_cast<Value*>(iv);
    B.CreateStore(B.CreateSExt(B.CreateSub(at, x), B.getInt64Ty()), slot);
  });
}

// The IV is compared with probe.at, a header PHI that each probe moves `gap` steps ahead
// of the IV (adaptive sites: quanta_clock_gap()'s gap; fixed strides: the stride).
void LoopPlanner::ivLatch(Loop* L, LoopPlan& p, BasicBlock* latch) {
  if (sharesExitTests() && adaptiveExitLatch(L, p, latch)) return;
  const SmallVector<BasicBlock*, 4> otherExits = exitingBlocksBesides(L, latch);
  BasicBlock* pre = L->getLoopPreheader();
  Type* ty = p.ivNext->getType();
  const bool charge = chargesParent(L);
  // A loop probes when its stepped IV reaches probe.at.
  Value* tested = p.ivNext;
  Value* site = AP_ ? AP_->newSite(F_) : nullptr;
  AllocaInst* slot = charge ? nullptr : leftSlot(int64_t(p.stride) * p.step);
  IRBuilder<> PB(pre->getTerminator());
  Constant* step = ConstantInt::get(ty, p.step, /*isSigned=*/true);
  Value* left = slot ? PB.CreateTrunc(PB.CreateLoad(PB.getInt64Ty(), slot, "quanta.probe.left"), ty)
                     : ConstantInt::get(ty, int64_t(p.stride) * p.step, /*isSigned=*/true);
  Value* first = PB.CreateAdd(p.ivStart, left, "quanta.probe.first");

  BasicBlock* header = L->getHeader();
  PHINode* at = PHINode::Create(ty, 2, "quanta.probe.at", header->begin());
  Instruction* term = latch->getTerminator();
  IRBuilder<> B(term);
  Value* fire = B.CreateICmpEQ(tested, at, "quanta.fire");
  Instruction* then = SplitBlockAndInsertIfThen(fire, term, false, PE_.unlikely());
  IRBuilder<> T(then);
  Value* gap = site ? AP_->probe(T, site, p.stride, maxGap(p.stride), T.getInt64(0)) : T.getInt64(p.stride);
  Value* ahead = T.CreateMul(T.CreateZExtOrTrunc(gap, ty), step);
  Value* next = T.CreateAdd(tested, ahead, "quanta.probe.next");
  if (!site) mark(then);
  BasicBlock* tail = term->getParent();
  PHINode* merged = PHINode::Create(ty, 2, "quanta.probe.at.next", tail->begin());
  merged->addIncoming(at, latch);
  merged->addIncoming(next, then->getParent());
  at->addIncoming(first, pre);
  at->addIncoming(merged, tail);
  // The latch's exits account from the IV's next value, any other from the iteration's IV.
  SmallVector<BasicBlock*, 4> exiting(otherExits.begin(), otherExits.end());
  exiting.push_back(tail);
  if (charge) {
    chargeParentOnExits(L, exiting, p, [&](BasicBlock* from) { return from == tail ? p.ivNext : p.iv; });
  } else {
    onExitEdges(L, exiting, [&](IRBuilder<>& EB, BasicBlock* from) {
      Value* left = from == tail ? EB.CreateSub(merged, p.ivNext) : EB.CreateSub(at, p.iv);
      EB.CreateStore(EB.CreateSExt(left, EB.getInt64Ty()), slot);
    });
  }
  DT_.recalculate(F_);
  if (site) ++stats_.adaptiveProbes;
}

}  // namespace quanta
