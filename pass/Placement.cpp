#include "Placement.h"

#include <optional>

#include "Decisions.h"
#include "LockGuard.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace quanta {

namespace {
// The probe-free distance at a point of the walk: `any` is the longest probe-free path
// ending there, `fromEntry` the longest of those that start at the function's entry
// (none once every path from the entry to here has met a probe).
struct Reach {
  uint64_t any = 0;
  std::optional<uint64_t> fromEntry;
};

struct Walk {
  const CostModel& CM;
  uint64_t bound;
  bool indirectReenters;
  struct Placed {
    Instruction* at;
    Cut why;
    uint64_t detail;  // for the remark: the path before it, or the callee's unprobed start
  };
  SmallVector<Placed, 16> cuts;
  CallSummary summary;

  void cut(Instruction* at, Reach& r, Cut why, uint64_t detail) {
    cuts.push_back({at, why, detail});
    r.any = 0;
    r.fromEntry.reset();
  }
  void add(Reach& r, uint64_t c) {
    r.any += c;
    if (r.fromEntry) {
      *r.fromEntry += c;
      summary.entry = std::max(summary.entry, *r.fromEntry);
    }
  }
  void step(Instruction& I, Reach& r) {
    auto* CB = dyn_cast<CallBase>(&I);
    std::optional<CallSummary> s = CB ? CM.callSummary(*CB) : std::nullopt;
    if (!s) {
      uint64_t c = CM.instCost(I);
      if (!c) return;
      if (r.any + c > bound && r.any > 0 && !I.isEHPad() && !isa<PHINode>(I)) cut(&I, r, Cut::Path, r.any);
      add(r, c);
      // An indirect call that may come back into this function's cycle returns with what
      // that callee left unprobed, not known here: as after a direct call within the
      // cycle, the path goes on at the bound and probes before its next work.
      if (indirectReenters && CB && !CB->isInlineAsm() && !CB->getCalledFunction())
        r.any = std::max(r.any, bound + 1);
      return;
    }
    // The callee runs `entry` before its first probe. The call's own unit is charged only
    // to a path that runs through the callee unprobed: a callee that probes first needs
    // no probe before the call, and its `exit` already counts its return.
    if (r.any > 0 && r.any + s->entry > bound) cut(&I, r, Cut::BeforeCall, s->entry);
    if (r.fromEntry) summary.entry = std::max(summary.entry, *r.fromEntry + s->entry);
    Reach after;
    after.any = s->exit;
    if (s->through) {
      after.any = std::max(after.any, r.any + 1 + *s->through);
      if (r.fromEntry) {
        after.fromEntry = *r.fromEntry + 1 + *s->through;
        summary.entry = std::max(summary.entry, *after.fromEntry);
      }
    }
    r = after;
  }
};
}  // namespace

CallSummary placeBoundedPaths(Function& F, LoopInfo& LI, const LoopPlanner& loops, const CostModel& CM,
                              ProbeEmitter& PE, uint64_t bound, EntryOnCycle entry, bool indirectReenters,
                              OptimizationRemarkEmitter* ORE) {
  Walk w{CM, bound, indirectReenters, {}, {}};
  Instruction* tickAt = nullptr;
  DenseMap<BasicBlock*, Reach> out;
  ReversePostOrderTraversal<Function*> rpo(&F);
  for (BasicBlock* BB : rpo) {
    Reach in;
    if (BB == &F.getEntryBlock()) {
      in.fromEntry = 0;
      // After the allocas: the probe splits its block, and an alloca moved out of the entry
      // block would become a dynamic one.
      if (entry != EntryOnCycle::None) {
        BasicBlock::iterator at = BB->getFirstInsertionPt();
        while (isa<AllocaInst>(*at) || isa<DbgInfoIntrinsic>(*at)) ++at;
        // A tick does not always read the clock: the walk goes on as if it were not there,
        // so the summary's `entry` (what callers add, and the tick's charge) is the longest
        // probe-free path from the tick.
        if (entry == EntryOnCycle::Tick) tickAt = &*at;
        else w.cut(&*at, in, Cut::Cycle, 0);
      }
    }
    for (BasicBlock* P : predecessors(BB)) {
      auto it = out.find(P);  // unvisited predecessor: a back or retreating edge
      if (it == out.end()) continue;
      in.any = std::max(in.any, it->second.any);
      if (it->second.fromEntry) in.fromEntry = std::max(in.fromEntry.value_or(0), *it->second.fromEntry);
    }
    Loop* L = LI.getLoopFor(BB);
    if (L && L->getHeader() == BB) {
      uint64_t extra = loops.entryExtra(L);
      if (in.any > 0 && in.any + extra + loops.iterCost(L) > bound) {
        if (BasicBlock* pre = L->getLoopPreheader()) w.cut(pre->getTerminator(), in, Cut::LoopEntry, in.any);
      }
      w.add(in, extra);
    }
    Reach r = in;
    for (Instruction& I : *BB) w.step(I, r);
    if (isa<ReturnInst>(BB->getTerminator()) || isa<ResumeInst>(BB->getTerminator())) {
      w.summary.exit = std::max(w.summary.exit, r.any);
      if (r.fromEntry) w.summary.through = std::max(w.summary.through.value_or(0), *r.fromEntry);
    }
    out[BB] = r;
  }
  for (const Walk::Placed& c : w.cuts) {
    noteCut(ORE, c.at, c.why, c.detail, bound);
    PE.mark(c.at);
  }
  if (tickAt) {
    uint64_t charge = tickCharge(w.summary);
    noteCut(ORE, tickAt, Cut::Tick, charge, bound);
    PE.markTick(tickAt, charge);
  }
  return w.summary;
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
                         uint64_t minFnCost, OptimizationRemarkEmitter* ORE) {
  SmallVector<Instruction*, 16> at;
  if (isNonTrivial(F, LI, CM, minFnCost)) {
    at.push_back(&*F.getEntryBlock().getFirstInsertionPt());
    noteFlagEntry(ORE, at.back());
  }
  for (BasicBlock& BB : F)
    for (Instruction& I : BB) {
      auto* CI = dyn_cast<CallInst>(&I);
      if (!CI || !CM.isExternalCall(*CI) || CI->doesNotReturn()) continue;
      if (Function* callee = CI->getCalledFunction())
        if (lockRole(callee->getName()) != LockRole::None) {
          noteNoProbeAfterLock(ORE, CI);
          continue;
        }
      Instruction* next = CI->getNextNode();
      if (next && !next->isEHPad()) {
        at.push_back(next);
        noteFlagAfterCall(ORE, CI);
      }
    }
  for (Instruction* I : at) PE.mark(I);
  return at.size();
}

}  // namespace quanta
