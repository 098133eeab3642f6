#include "Placement.h"

#include "LockGuard.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace quanta {

unsigned placeBoundedPaths(Function& F, LoopInfo& LI, const LoopPlanner& loops, const CostModel& CM,
                           ProbeEmitter& PE, uint64_t bound) {
  DenseMap<BasicBlock*, uint64_t> out;
  SmallVector<Instruction*, 16> cuts;
  ReversePostOrderTraversal<Function*> rpo(&F);
  for (BasicBlock* BB : rpo) {
    uint64_t in = 0;
    for (BasicBlock* P : predecessors(BB)) {
      auto it = out.find(P);  // unvisited predecessor: a back or retreating edge
      if (it != out.end()) in = std::max(in, it->second);
    }
    Loop* L = LI.getLoopFor(BB);
    if (L && L->getHeader() == BB) {
      uint64_t extra = loops.entryExtra(L);
      if (in > 0 && in + extra + loops.iterCost(L) > bound) {
        if (BasicBlock* pre = L->getLoopPreheader()) {
          cuts.push_back(pre->getTerminator());
          in = 0;
        }
      }
      in += extra;
    }
    uint64_t d = in;
    for (Instruction& I : *BB) {
      uint64_t c = CM.instCost(I);
      if (!c) continue;
      if (d + c > bound && d > 0 && !I.isEHPad() && !isa<PHINode>(I)) {
        cuts.push_back(&I);
        d = 0;
      }
      d += c;
    }
    out[BB] = d;
  }
  for (Instruction* I : cuts) PE.mark(I);
  return cuts.size();
}

static bool isNonTrivial(Function& F, LoopInfo& LI, const CostModel& CM, uint64_t minFnCost) {
  if (!LI.empty()) return true;
  uint64_t total = 0;
  for (BasicBlock& BB : F)
    for (Instruction& I : BB) {
      if (auto* CB = dyn_cast<CallBase>(&I))
        if (!isa<IntrinsicInst>(CB) && !isProbeMarker(I)) return true;
      total += CM.instCost(I);
    }
  return total >= minFnCost;
}

unsigned placeFlagPoints(Function& F, LoopInfo& LI, const CostModel& CM, ProbeEmitter& PE,
                         uint64_t minFnCost) {
  SmallVector<Instruction*, 16> at;
  if (isNonTrivial(F, LI, CM, minFnCost)) at.push_back(&*F.getEntryBlock().getFirstInsertionPt());
  for (BasicBlock& BB : F)
    for (Instruction& I : BB) {
      auto* CI = dyn_cast<CallInst>(&I);
      if (!CI || !CM.isExternalCall(*CI) || CI->doesNotReturn()) continue;
      if (Function* callee = CI->getCalledFunction())
        if (lockRole(callee->getName()) != LockRole::None) continue;
      Instruction* next = CI->getNextNode();
      if (next && !next->isEHPad()) at.push_back(next);
    }
  for (Instruction* I : at) PE.mark(I);
  return at.size();
}

}  // namespace quanta
