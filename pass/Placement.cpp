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
// into the cycle). `ticked`: some path here started at a post-call tick, with no clock
// probe since (`any` counts it from that tick): a return here is a ticked exit.
// `tickOwed`: some path here left a call that may return from a tick, inside a loop on the
// thread's budget, with no tick after it: the first block outside such loops owes one.
struct Reach {
  uint64_t any = 0;
  std::optional<uint64_t> fromEntry;
  SmallVector<std::pair<unsigned, uint64_t>, 2> ticks;
  bool ticked = false;
  bool tickOwed = false;

  uint64_t sinceTick() const {
    uint64_t m = 0;
    for (auto [i, len] : ticks) m = std::max(m, len);
    return m;
  }
  void join(const Reach& o) {
    any = std::max(any, o.any);
    ticked |= o.ticked;
    tickOwed |= o.tickOwed;
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
  const LoopInfo& LI;
  const LoopPlanner& loops;
  uint64_t bound;
  bool indirectReenters;
  bool callTicks;  // a tick, not a clock probe, after a call that may return from a tick
  // A function on a call-graph cycle whose entry is a tick: where a path from a clock read
  // would pass the bound, a tick instead of a clock probe where one may go (tickAtBound).
  bool boundTicks = false;
  // Ticks only: where a path from one would pass this, outside loops, a tick of its own.
  uint64_t tickTarget = 0;
  bool inLoop = false;
  // The innermost loop of the block being walked, if it charges the thread's budget.
  const Loop* budgetLoop = nullptr;
  struct Placed {
    Instruction* at;
    Cut why;
    uint64_t detail;  // for the remark: the path before it, or the callee's unprobed start
  };
  SmallVector<Placed, 16> cuts;
  struct Tick {
    Instruction* at;
    Cut why;
    uint64_t charge;
    // The innermost loop around the tick, if it charges the thread's budget: that loop's
    // own blocks charge the budget for what they run (optional blocks where they end,
    // the others at the latch), so the tick's charge leaves out its reach within them as
    // long as the iteration goes on to the back-edge (`counts`, `endTicks`).
    const Loop* home;
  };
  SmallVector<Tick, 4> ticks;
  CallSummary summary;
  // Counter loops whose entry would read the clock where a tick may go (loopEntry).
  SmallVector<Loop*, 2> toThreadBudget;

  void cut(Instruction* at, Reach& r, Cut why, uint64_t detail) {
    uint64_t carried = outOfLockBracket(at);
    cuts.push_back({at, why, detail});
    clockRead(r);
    add(r, carried);
  }
  // A clock read here (a probe, or the runtime's quanta_preempt_enable()): the ticks that
  // reach it end there, and every path starts afresh.
  void clockRead(Reach& r) {
    endTicks(r);
    r.any = 0;
    r.fromEntry.reset();
    r.ticks.clear();
    r.ticked = false;
    r.tickOwed = false;
  }
  void tick(Instruction* at, Reach& r, Cut why = Cut::PathTick) {
    uint64_t carried = outOfLockBracket(at);
    endTicks(r);
    r.ticks.assign(1, {ticks.size(), 0});
    r.tickOwed = false;
    ticks.push_back({at, why, 0, budgetLoop});
    growTicks(r, carried);
  }
  // Between quanta_preempt_disable() and the lock call it brackets (LockGuard.cpp) a probe
  // is muted and could only defer: it goes before the disable instead, at `at`, and the
  // disable's cost (returned) is on the path after it.
  uint64_t outOfLockBracket(Instruction*& at) const {
    Instruction* prev = at->getPrevNode();
    if (!callsFunction(prev, "quanta_preempt_disable")) return 0;
    at = prev;
    return CM.instCost(*prev);
  }
  // Whether the walk's current point adds to tick i's charge: not in a block of the
  // tick's own loop, which charges itself. Where the path leaves that loop, or meets a
  // probe or another tick in it (the iteration may then leave it before its latch
  // charges the blocks every iteration runs), the whole reach counts (`endTicks`).
  bool counts(unsigned i) const { return !ticks[i].home || ticks[i].home != budgetLoop; }
  void charge(unsigned i, uint64_t len) {
    if (counts(i)) ticks[i].charge = std::max(ticks[i].charge, len);
  }
  void endTicks(const Reach& r, uint64_t extra = 0) {
    for (auto [i, len] : r.ticks) ticks[i].charge = std::max(ticks[i].charge, len + extra);
  }
  // Where a post-call tick may go: its stretch must end before any back-edge it reaches,
  // which the walk does not follow. A loop that probes on every back-edge ends it there;
  // one that charges the thread's budget (LoopPlan::threadBudget) goes on charging, from
  // each iteration, the budget the tick charged. A loop that counts its iterations could
  // run B past the tick with neither; the planner gives every loop around such a call one
  // of the two plans, so that only an invoke's return reads the clock.
  bool tickAllowed(const BasicBlock* BB) const {
    for (Loop* L = LI.getLoopFor(BB); L; L = L->getParentLoop()) {
      const LoopPlan* p = loops.planFor(L);
      if (p->kind != LoopPlan::Every && !(p->kind == LoopPlan::Counter && p->threadBudget)) return false;
    }
    return true;
  }
  // In a function on a call-graph cycle, which charges the thread's budget at its entry
  // anyway: a path from the last clock read that would pass the bound here starts a tick's
  // stretch instead of reading the clock, as the path after a call back into the cycle
  // does (afterReentry). A clock read there costs a serializing rdtsc on every run; a tick
  // costs a subtraction, and reads the clock once the thread's budget runs out. The bound
  // as stated for ticks (docs/pass.md, "Across calls") holds: the stretch from the clock
  // read to here is at most B, and the tick's stretch comes out of the budget. Where a
  // post-call tick may go (tickAllowed): in a loop that charges the thread's budget, whose
  // blocks charge themselves, the tick charges what runs outside them (an interpreter's
  // opcode that calls back into the cycle; sqlite3VdbeExec's clock reads before
  // sqlite3BtreeInsert); a loop that counts its own budget would not see the tick's.
  bool tickAtBound(Instruction* at, Reach& r) {
    if (!boundTicks || !tickAllowed(at->getParent()) || at->isEHPad() || isa<PHINode>(at)) return false;
    tickedStretch(at, r, Cut::BoundTick);
    return true;
  }
  // A loop about to be entered with a path from a clock read that cannot also afford its
  // first iteration: a clock probe in its preheader, or, where a tick at the bound may go
  // and the loop counts a budget, that budget becomes the thread's (LoopPlanner::
  // chargeThreadBudget), so that the loop's iterations are ticked code and its preheader
  // reads no clock. sqlite3VdbeExec's record-building loop read the clock on each of
  // 427K entries (a run of bench/real_programs.py's input).
  void loopEntry(Loop* L, const LoopPlan& plan, Reach& r) {
    BasicBlock* pre = L->getLoopPreheader();
    if (!pre) return;
    if (boundTicks && plan.kind == LoopPlan::Counter && !plan.threadBudget && tickAllowed(pre)) {
      toThreadBudget.push_back(L);
      return;
    }
    cut(pre->getTerminator(), r, Cut::LoopEntry, r.any);
  }
  // A tick at `at` that starts a stretch off every path from a clock read: the paths start
  // afresh there (none runs on from the entry unprobed) and a return they reach is a
  // ticked exit.
  void tickedStretch(Instruction* at, Reach& r, Cut why) {
    r.any = 0;
    r.fromEntry.reset();
    r.ticked = true;
    tick(at, r, why);
  }
  // After `CB`, which may return from a tick (a call back into the cycle, an indirect call
  // that may re-enter it, a callee with a ticked exit): nothing since is on a path from a
  // clock read. A post-call tick right after it starts a stretch of its own; where none may
  // go, the path goes on at the bound and a clock probe comes before its next work.
  //
  // In a loop on the thread's budget the tick waits for the path to leave such loops
  // (payOwedTick): the loop's blocks charge what they run, the call's block all of it, and
  // the latch's check reads the clock once the budget runs out, within the iteration; a
  // tick right after the call would charge nothing in the loop and check earlier by at
  // most that iteration. sqlite3VdbeExec's opcodes that call paid a flush before the call
  // and a tick after it; they keep the flush.
  void afterReentry(CallBase& CB, Reach& r, uint64_t atBound) {
    if (!callTicks || isa<InvokeInst>(CB) || !tickAllowed(CB.getParent())) {
      r.any = std::max(r.any, atBound);
      return;
    }
    if (!budgetLoop) {
      tickedStretch(CB.getNextNode(), r, Cut::CallTick);
      return;
    }
    clockRead(r);  // the paths end here as at a tick (endTicks included)
    r.ticked = true;
    r.tickOwed = true;
  }
  // The first block outside the loops on the thread's budget that a path owing a tick
  // reaches ticks first: a loop's exit block (its predecessors are all in the loop), or,
  // for the header of a loop of another kind inside one, that loop's preheader, which runs
  // once per entry.
  void payOwedTick(BasicBlock* BB, Reach& r) {
    if (!r.tickOwed) return;
    // A Static loop's whole run is charged where it is entered.
    Loop* L = LI.getLoopFor(BB);
    for (Loop* around = L; around; around = around->getParentLoop()) {
      const LoopPlan* p = loops.planFor(around);
      if (p->kind == LoopPlan::Static) continue;
      if (p->kind == LoopPlan::Counter && p->threadBudget) return;
      break;
    }
    Instruction* at = nullptr;
    if (L && L->getHeader() == BB && L->getLoopPreheader()) at = L->getLoopPreheader()->getTerminator();
    else if (BB->getFirstInsertionPt() != BB->end()) at = &*BB->getFirstInsertionPt();
    if (!at) return;  // a catchswitch: the block after it pays
    // The tick charges what the path ran in the loop since the call as well: the last
    // iteration leaves before the latch charges it.
    uint64_t inLoop = r.any;
    r.fromEntry.reset();
    tick(at, r, Cut::OwedTick);
    growTicks(r, inLoop);
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
      charge(i, len);
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
    // The end of a lock's bracket reads the clock itself (and yields if the quantum ended
    // inside it): a probe for every path through it.
    if (callsFunction(&I, "quanta_preempt_enable")) {
      add(r, CM.instCost(I));
      clockRead(r);
      return;
    }
    auto* CB = dyn_cast<CallBase>(&I);
    std::optional<CallSummary> s = CB ? CM.callSummary(*CB) : std::nullopt;
    if (!s) {
      uint64_t c = CM.instCost(I);
      if (!c) return;
      if (r.any + c > bound && r.any > 0 && !I.isEHPad() && !isa<PHINode>(I)) {
        if (!tickAtBound(&I, r)) cut(&I, r, Cut::Path, r.any);
      } else if (wantsTick(r, c, I)) tick(&I, r);
      add(r, c);
      // An indirect call that may come back into this function's cycle returns as a direct
      // call within the cycle does.
      if (CB && CM.mayReturnFromTick(*CB, indirectReenters)) afterReentry(*CB, r, bound + 1);
      return;
    }
    // The callee runs `entry` before its first probe. The call's own unit is charged only
    // to a path that runs through the callee unprobed: a callee that probes first needs
    // no probe before the call, and its `exit` already counts its return.
    if (r.any > 0 && r.any + s->entry > bound) {
      if (!tickAtBound(&I, r)) cut(&I, r, Cut::BeforeCall, s->entry);
    } else if (s->entry && wantsTick(r, s->entry, I)) tick(&I, r);
    if (r.fromEntry) summary.entry = std::max(summary.entry, *r.fromEntry + s->entry);
    Reach after;
    after.any = s->exit;
    // A call that no path runs through unprobed ends the ticks' stretches.
    if (!s->through) {
      endTicks(r, s->entry);
    } else {
      for (auto [i, len] : r.ticks) charge(i, len + s->entry);
      after.any = std::max(after.any, r.any + 1 + *s->through);
      if (r.fromEntry) {
        after.fromEntry = *r.fromEntry + 1 + *s->through;
        summary.entry = std::max(summary.entry, *after.fromEntry);
      }
      after.ticks = r.ticks;
      after.ticked = r.ticked;
      growTicks(after, 1 + *s->through);
    }
    r = after;
    if (s->tickedExit) afterReentry(*CB, r, bound);
  }
};
}  // namespace

static Walk walk(Function& F, LoopInfo& LI, const LoopPlanner& loops, const CostModel& CM, uint64_t bound,
                 EntryOnCycle entry, bool indirectReenters, bool callTicks) {
  Walk w{CM, LI, loops, bound, indirectReenters, callTicks, entry == EntryOnCycle::Tick, bound / 8, false, nullptr, {}, {}, {}, {}};
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
        if (entry == EntryOnCycle::Tick) w.tick(&*at, in, Cut::Tick);
        else w.cut(&*at, in, Cut::Cycle, 0);
      }
    }
    for (BasicBlock* P : predecessors(BB)) {
      auto it = out.find(P);  // unvisited predecessor: a back or retreating edge
      if (it != out.end()) in.join(it->second);
    }
    Loop* L = LI.getLoopFor(BB);
    w.inLoop = L != nullptr;
    const LoopPlan* lp = L ? loops.planFor(L) : nullptr;
    w.budgetLoop = lp && lp->kind == LoopPlan::Counter && lp->threadBudget ? L : nullptr;
    if (L && L->getHeader() == BB && w.budgetLoop == L) {
      // A loop that charges the thread's budget charges its first iteration too (after it
      // ran, as every other): the path from the last clock read stops at its header, and
      // no probe goes in its preheader. Each entry of sqlite3VdbeExec's OP_MakeRecord and
      // OP_Copy loops read the clock there, their longest iteration (a call's whole
      // summary) never fitting beside the path to them. The stretches of ticks before it
      // end there as well, and so does the function's unprobed start for its callers.
      w.endTicks(in);
      in.ticks.clear();
      in.any = 0;
      if (in.fromEntry) in.fromEntry = 0;
    } else if (L && L->getHeader() == BB) {
      uint64_t extra = loops.entryExtra(L);
      if (in.any > 0 && in.any + extra + loops.iterCost(L) > bound) w.loopEntry(L, *lp, in);
      w.add(in, extra);
    }
    w.payOwedTick(BB, in);
    Reach r = in;
    for (Instruction& I : *BB) w.step(I, r);
    if (isa<ReturnInst>(BB->getTerminator()) || isa<ResumeInst>(BB->getTerminator())) {
      w.summary.exit = std::max(w.summary.exit, r.any);
      if (r.fromEntry) w.summary.through = std::max(w.summary.through.value_or(0), *r.fromEntry);
      if (r.ticked) w.summary.tickedExit = std::max(w.summary.tickedExit.value_or(0), r.any);
    }
    out[BB] = r;
  }
  return w;
}

Placed placeBoundedPaths(Function& F, LoopInfo& LI, LoopPlanner& loops, const CostModel& CM, ProbeEmitter& PE,
                         uint64_t bound, EntryOnCycle entry, bool indirectReenters, bool callTicks,
                         OptimizationRemarkEmitter* ORE) {
  // A loop moved to the thread's budget changes the paths after it: walk again until no
  // more move (each loop moves once).
  std::optional<Walk> last;
  for (;;) {
    last.emplace(walk(F, LI, loops, CM, bound, entry, indirectReenters, callTicks));
    if (last->toThreadBudget.empty()) break;
    for (Loop* L : last->toThreadBudget) loops.chargeThreadBudget(L);
  }
  const Walk& w = *last;
  for (const Walk::Placed& c : w.cuts) {
    noteCut(ORE, c.at, c.why, c.detail, bound);
    PE.mark(c.at);
  }
  Placed placed{w.summary, 0};
  for (const Walk::Tick& t : w.ticks) {
    uint64_t charge = std::max<uint64_t>(t.charge, 1);
    noteCut(ORE, t.at, t.why, charge, bound);
    PE.markTick(t.at, charge);
    if (t.why == Cut::Tick) placed.entryTickCharge = charge;
  }
  return placed;
}

}  // namespace quanta
