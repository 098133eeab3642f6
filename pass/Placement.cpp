#include "Placement.h"

#include <optional>

#include "Decisions.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace quanta {

namespace {
// The probe-free distance at a point of the walk: `any` is the longest probe-free path
// ending there, `fromEntry` the longest of those that start at the function's entry
// (none once every path from the entry to here has met a probe).
// `ticks`: for each tick with a probe-free path to here, the longest such path (a tick's
// charge is the longest it reaches before a probe, another tick, a return or a call back
// into the cycle).
struct Reach {
  uint64_t any = 0;
  std::optional<uint64_t> fromEntry;
  SmallVector<std::pair<unsigned, uint64_t>, 2> ticks;

  uint64_t sinceTick() const {
    uint64_t m = 0;
    for (auto [i, len] : ticks) m = std::max(m, len);
    return m;
  }
  void join(const Reach& o) {
    any = std::max(any, o.any);
    if (o.fromEntry) fromEntry = std::max(fromEntry.value_or(0), *o.fromEntry);
    for (auto [i, len] : o.ticks) {
      auto it = llvm::find_if(ticks, [&](auto& t) { return t.first == i; });
      if (it == ticks.end()) ticks.push_back({i, len});
      else it->second = std::max(it->second, len);
    }
  }
};

struct Walk {
  const CostModel& CM;
  uint64_t bound;
  bool indirectReenters;
  // Ticks only: where a path from one would pass this, outside loops, a tick of its own.
  uint64_t tickTarget = 0;
  bool inLoop = false;
  struct Placed {
    Instruction* at;
    Cut why;
    uint64_t detail;  // for the remark: the path before it, or the callee's unprobed start
  };
  SmallVector<Placed, 16> cuts;
  SmallVector<Instruction*, 4> tickAt;
  SmallVector<uint64_t, 4> charge;
  CallSummary summary;

  void cut(Instruction* at, Reach& r, Cut why, uint64_t detail) {
    cuts.push_back({at, why, detail});
    r.any = 0;
    r.fromEntry.reset();
    r.ticks.clear();
  }
  void tick(Instruction* at, Reach& r) {
    r.ticks.assign(1, {charge.size(), 0});
    tickAt.push_back(at);
    charge.push_back(0);
  }
  // A path from a tick about to take `c` more than the tick target gets a tick of its own
  // (not in a loop: it would run every iteration; not at a return, which ends the stretch).
  bool wantsTick(const Reach& r, uint64_t c, Instruction& I) const {
    uint64_t since = r.sinceTick();
    return !r.ticks.empty() && !inLoop && since > 0 && since + c > tickTarget && !I.isEHPad() &&
           !isa<PHINode>(I) && !isa<ReturnInst>(I);
  }
  void growTicks(Reach& r, uint64_t c) {
    for (auto& [i, len] : r.ticks) {
      len += c;
      charge[i] = std::max(charge[i], len);
    }
  }
  void add(Reach& r, uint64_t c) {
    r.any += c;
    if (r.fromEntry) {
      *r.fromEntry += c;
      summary.entry = std::max(summary.entry, *r.fromEntry);
    }
    growTicks(r, c);
  }
  void step(Instruction& I, Reach& r) {
    auto* CB = dyn_cast<CallBase>(&I);
    std::optional<CallSummary> s = CB ? CM.callSummary(*CB) : std::nullopt;
    if (!s) {
      uint64_t c = CM.instCost(I);
      if (!c) return;
      if (r.any + c > bound && r.any > 0 && !I.isEHPad() && !isa<PHINode>(I)) cut(&I, r, Cut::Path, r.any);
      else if (wantsTick(r, c, I)) tick(&I, r);
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
    else if (s->entry && wantsTick(r, s->entry, I)) tick(&I, r);
    if (r.fromEntry) summary.entry = std::max(summary.entry, *r.fromEntry + s->entry);
    Reach after;
    after.any = s->exit;
    for (auto [i, len] : r.ticks) charge[i] = std::max(charge[i], len + s->entry);
    if (s->through) {
      after.any = std::max(after.any, r.any + 1 + *s->through);
      if (r.fromEntry) {
        after.fromEntry = *r.fromEntry + 1 + *s->through;
        summary.entry = std::max(summary.entry, *after.fromEntry);
      }
      after.ticks = r.ticks;
      growTicks(after, 1 + *s->through);
    }
    r = after;
  }
};
}  // namespace

Placed placeBoundedPaths(Function& F, LoopInfo& LI, const LoopPlanner& loops, const CostModel& CM,
                         ProbeEmitter& PE, uint64_t bound, EntryOnCycle entry, bool indirectReenters,
                         OptimizationRemarkEmitter* ORE) {
  Walk w{CM, bound, indirectReenters, bound / 8, false, {}, {}, {}, {}};
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
        // so the summary's `entry` (what callers add) runs on past it.
        if (entry == EntryOnCycle::Tick) w.tick(&*at, in);
        else w.cut(&*at, in, Cut::Cycle, 0);
      }
    }
    for (BasicBlock* P : predecessors(BB)) {
      auto it = out.find(P);  // unvisited predecessor: a back or retreating edge
      if (it != out.end()) in.join(it->second);
    }
    Loop* L = LI.getLoopFor(BB);
    w.inLoop = L != nullptr;
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
  for (unsigned i = 0; i < w.tickAt.size(); ++i) {
    uint64_t charge = std::max<uint64_t>(w.charge[i], 1);
    noteCut(ORE, w.tickAt[i], i ? Cut::PathTick : Cut::Tick, charge, bound);
    PE.markTick(w.tickAt[i], charge);
  }
  return {w.summary, w.tickAt.empty() ? 0 : std::max<uint64_t>(w.charge[0], 1)};
}

}  // namespace quanta
