// Poll loops (flag mode): the flag is read on every iteration through a pointer kept in a
// register, and the loops directly under a polled loop share their exit tests.
#include "LoopPlanner.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace quanta {

// A loop directly inside a polled loop starts a whole stride on each entry, so a probe
// that shares its exit test costs nothing on its hot path: it replaces the loop's own
// poll (a load, compare and branch per iteration) or budget. Only for loops with no
// probing loops inside: a polled loop gives its children fresh strides too, and a child
// entered on every iteration would pay a distance loaded and stored per entry instead
// (lu's vectorized inner loop under a polled middle loop: +2 points of instructions).
void LoopPlanner::shareExitTestsUnderPolls() {
  if (AP_ || !cfg_.compare.mergeExit) return;
  for (Loop* L : postorder_) {
    Loop* parent = L->getParentLoop();
    LoopPlan& p = plans_[L];
    if (!parent || planFor(parent)->kind != LoopPlan::Poll || !L->getLoopLatch() || !L->getLoopPreheader())
      continue;
    if (any_of(L->getSubLoops(), [&](Loop* c) { return planFor(c)->kind != LoopPlan::Static; })) continue;
    if (p.kind != LoopPlan::Poll && p.kind != LoopPlan::Counter && p.kind != LoopPlan::IVStride) continue;
    LoopPlan shared = p;
    shared.kind = LoopPlan::IVStride;
    shared.stride = nearPow2(bound_ / p.iterCost);
    // Should the latch change by apply() time after all, the budget that strideLatch falls
    // back to charges every iteration its longest path.
    shared.mandatoryCost = p.iterCost;
    ExitTest t;
    shared.why = "directly under a polled loop: its exit test carries the probe";
    if (shared.stride > 1 && matchExitTest(L, L->getLoopLatch(), shared, /*general=*/true, t)) p = shared;
  }
}

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

// Flag mode: a loop striding over budgeted children (strideOverChildren) whose exit
// test can carry its probe is not polled: the probe then adds nothing to an iteration,
// where a poll adds a load, compare and branch (hash_lookup's outer loop: ~15% with the
// poll; its iterations overlap their misses, so every instruction counts).
bool LoopPlanner::sharesExitOverChildren(Loop* L, const LoopPlan& p, bool dynamicChildren) const {
  if (!dynamicChildren || p.kind != LoopPlan::IVStride || !cfg_.compare.mergeExit ||
      !cfg_.compare.pollYieldsToExit)
    return false;
  ExitTest t;
  return L->getLoopLatch() && exitShare(L, p, L->getLoopLatch(), /*freshStride=*/false, t) != ExitShare::None;
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
