// Poll loops (flag mode): the flag is read on every iteration through a pointer kept in a
// register.
#include "LoopPlanner.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace quanta {

// Flag mode: a loop that can keep the flag's address in a register, i.e. nothing in it but
// a probe's slow path may switch threads (no calls), and that has branches of its own
// besides the latch's (a loop without them predicts its stride's branch well enough).
bool LoopPlanner::canPoll(Loop* L) const {
  if (cfg_.mode != Mode::Flag || !L->getLoopPreheader() || L->getHeader()->isEHPad())
    return false;
  bool branchy = false;
  for (BasicBlock* BB : L->blocks()) {
    for (Instruction& I : *BB)
      if (auto* CB = dyn_cast<CallBase>(&I))
        if (!isa<IntrinsicInst>(CB) || isProbeMarker(I)) return false;
    if (LI_.getLoopFor(BB) == L && !L->isLoopLatch(BB) && BB->getTerminator()->getNumSuccessors() > 1)
      branchy = true;
  }
  return branchy;
}

// Whether L is a polled loop or inside one: its probes read the flag at its address's register.
bool LoopPlanner::inPollNest(Loop* L) const {
  for (; L; L = L->getParentLoop())
    if (planFor(L)->kind == LoopPlan::Poll) return true;
  return false;
}

void LoopPlanner::mark(Instruction* pos) {
  CallInst* m = PE_.mark(pos);
  if (markingPollNest_) PE_.readsFlagSlot(m, flagSlot());
}

AllocaInst* LoopPlanner::flagSlot() {
  if (flagSlot_) return flagSlot_;
  BasicBlock& entry = F_.getEntryBlock();
  IRBuilder<> B(&entry, entry.getFirstInsertionPt());
  flagSlot_ = B.CreateAlloca(B.getPtrTy(ProbeEmitter::kThreadPointerRelative), nullptr, "quanta.flagp.slot");
  return flagSlot_;
}

// The flag's %fs-relative address lives in a slot promoted to a register: the outermost
// polled loop's preheader reads it and each polled header reads the flag through it. It
// holds on any thread, so a slow path that switched threads leaves it as it is.
void LoopPlanner::pollFlag(Loop* L) {
  AllocaInst* slot = flagSlot();
  if (!inPollNest(L->getParentLoop())) {
    IRBuilder<> PB(L->getLoopPreheader()->getTerminator());
    PB.CreateStore(PE_.flagAddress(PB), slot);
  }
  // A latch that one path reaches gets the read at its end: a loop entered for one
  // iteration (skip one delimiter) then reads none (what it ran is bounded by its
  // parent's poll or the function's entry probe before it). Where several paths meet at
  // the latch, the read goes to the top of the header: off the latch, the code generator
  // can still copy a short latch into each path instead of jumping to it.
  BasicBlock* latch = planFor(L)->pollAtLatch ? L->getLoopLatch() : nullptr;
  Instruction* at = latch ? latch->getTerminator() : &*L->getHeader()->getFirstInsertionPt();
  PE_.emitSlotFlagProbe(at, slot, &LI_);
  DT_.recalculate(F_);
}

}  // namespace quanta
