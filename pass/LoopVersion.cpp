// Version loops (clock mode): a short-loop fast path. The preheader tests the trip count;
// a probe-free clone runs trips that fit under the bound, the original, strided, the rest.
#include "LoopPlanner.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace llvm;

namespace quanta {

// Clone at most this many instructions for a short-loop fast path.
static constexpr unsigned kMaxVersionedInsts = 400;

bool LoopPlanner::canVersion(Loop* L, LoopPlan& p) {
  if (!allowVersioning_ || !L->isInnermost() || !L->getLoopPreheader() || !L->getLoopLatch() ||
      !L->hasDedicatedExits() || !L->isSafeToClone() || !L->isLCSSAForm(DT_))
    return false;
  unsigned n = 0;
  for (BasicBlock* BB : L->blocks()) n += BB->size();
  if (n > kMaxVersionedInsts) return false;
  const SCEV* btc = SE_.getBackedgeTakenCount(L);
  if (isa<SCEVCouldNotCompute>(btc) || !btc->getType()->isIntegerTy()) return false;
  SCEVExpander exp(SE_, F_.getDataLayout(), "quanta.trip");
  if (!exp.isSafeToExpandAt(btc, L->getLoopPreheader()->getTerminator())) return false;
  p.btc = btc;
  return true;
}

// Splits the preheader into a trip-count test and two loops. The clone is the probe-free
// fast path; the original keeps its markers and gets strided.
void LoopPlanner::versionLoop(Loop* L, LoopPlan& p) {
  BasicBlock* check = L->getLoopPreheader();
  SCEVExpander exp(SE_, F_.getDataLayout(), "quanta.trip");
  Value* btc = exp.expandCodeFor(p.btc, p.btc->getType(), check->getTerminator());
  IRBuilder<> B(check->getTerminator());
  auto* ty = cast<IntegerType>(btc->getType());
  uint64_t fit = bound_ / p.iterCost;  // trip <= fit  <=>  btc < fit
  Value* isShort = fit > ty->getBitMask() ? B.getTrue()
                                          : B.CreateICmpULT(btc, ConstantInt::get(ty, fit), "quanta.short");

  BasicBlock* slowPH = SplitBlock(check, check->getTerminator(), &DT_, &LI_, nullptr,
                                  L->getHeader()->getName() + ".quanta.ph");
  ValueToValueMapTy vmap;
  SmallVector<BasicBlock*, 16> cloned;
  Loop* fast = cloneLoopWithPreheader(slowPH, check, L, vmap, ".quanta.fast", &LI_, &DT_, cloned);
  remapInstructionsInBlocks(cloned, vmap);
  BasicBlock* fastPH = fast->getLoopPreheader();

  Instruction* oldTerm = check->getTerminator();
  BranchInst* br = BranchInst::Create(fastPH, slowPH, isShort, oldTerm->getIterator());
  br->setDebugLoc(oldTerm->getDebugLoc());
  oldTerm->eraseFromParent();

  // LCSSA: every value leaving the loop goes through a PHI in a dedicated exit block, so
  // giving those PHIs the clone's incoming values joins the two versions.
  SmallVector<BasicBlock*, 4> exits;
  L->getUniqueExitBlocks(exits);
  for (BasicBlock* exit : exits)
    for (PHINode& phi : exit->phis())
      for (unsigned i = 0, e = phi.getNumIncomingValues(); i != e; ++i) {
        BasicBlock* from = phi.getIncomingBlock(i);
        if (!L->contains(from)) continue;
        Value* v = phi.getIncomingValue(i);
        Value* mapped = vmap.count(v) ? static_cast<Value*>(vmap[v]) : v;
        phi.addIncoming(mapped, cast<BasicBlock>(vmap[from]));
      }

  // The fast path keeps no probe; in a nest it tells the parent's budget what it spent.
  for (BasicBlock* BB : cloned)
    for (Instruction& I : make_early_inc_range(*BB))
      if (isProbeMarker(I)) I.eraseFromParent();
  if (L->getParentLoop()) {
    IRBuilder<> FB(fastPH->getTerminator());
    Value* trips = FB.CreateAdd(FB.CreateZExtOrTrunc(btc, FB.getInt64Ty()), FB.getInt64(1));
    Value* spent = FB.CreateMul(trips, FB.getInt64(p.iterCost), "quanta.fastcost");
    chargeBudget(FB, L->getParentLoop(), spent);
  }
  DT_.recalculate(F_);
}

}  // namespace quanta
