// Loop planning: a plan per loop, children first, then the rewrite of each loop by its
// strategy (one file each: LoopVersion, LoopIVStride, LoopExitShare, LoopBudget, LoopPoll).
// The strategies themselves are described in LoopPlanner.h.
#include "LoopPlanner.h"

#include "Decisions.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace quanta {

// A loop whose dynamic children all keep the function's budget (and probe on it at their
// own latches) may stride on its own IV: the bound then holds per probing level, as in
// any nest. Charging the budget too costs the parent a subtract and branch on every
// iteration, and where iterations overlap their cache misses (hash_lookup's outer loop,
// one lookup each) an instruction added to an iteration costs its share of the misses in
// flight: ~10% there. Not over strided children: those would then carry their distance
// across entries instead of starting a fresh stride (flag mode: +0.5 points of
// instructions on matmul, lu, kmeans, nbody), nor over a short-loop fast path, which
// charges the budget for its parent to check. (Config::Comparisons::strideOverChildren.)

LoopPlanner::LoopPlanner(Function& F, LoopInfo& LI, ScalarEvolution& SE, DominatorTree& DT,
                         const CostModel& CM, const Config& cfg, ProbeEmitter& PE, uint64_t bound,
                         bool allowVersioning, AdaptiveProbe* adaptive)
    : F_(F), LI_(LI), SE_(SE), DT_(DT), CM_(CM), PE_(PE), cfg_(cfg), AP_(adaptive), bound_(bound),
      allowVersioning_(allowVersioning) {}

const LoopPlan* LoopPlanner::planFor(Loop* L) const {
  auto it = plans_.find(L);
  return it == plans_.end() ? nullptr : &it->second;
}

uint64_t LoopPlanner::iterCost(Loop* L) const {
  const LoopPlan* p = planFor(L);
  return p ? p->iterCost : 0;
}

uint64_t LoopPlanner::entryExtra(Loop* L) const {
  const LoopPlan* p = planFor(L);
  if (!p || p->kind != LoopPlan::Static) return 0;
  return p->staticCost > p->iterCost ? p->staticCost - p->iterCost : 0;
}

// Longest path from the header through one iteration, back-edges removed. Blocks of a
// child loop count only through the child's header: a Static child's whole run, anything
// else nothing (it probes itself or feeds the budget).
uint64_t LoopPlanner::computeIterCost(Loop* L) {
  DenseMap<BasicBlock*, uint64_t> dist;
  uint64_t longest = 0;
  ReversePostOrderTraversal<Function*> rpo(&F_);
  for (BasicBlock* BB : rpo) {
    if (!L->contains(BB)) continue;
    uint64_t in = 0;
    if (BB != L->getHeader()) {
      for (BasicBlock* P : predecessors(BB)) {
        if (!L->contains(P)) continue;
        Loop* PL = LI_.getLoopFor(BB);
        if (PL && PL->getHeader() == BB && PL->contains(P)) continue;  // back-edge of a child
        auto it = dist.find(P);
        if (it != dist.end()) in = std::max(in, it->second);
      }
    }
    uint64_t c = 0;
    Loop* owner = LI_.getLoopFor(BB);
    if (owner == L) {
      c = CM_.blockCost(*BB);
    } else if (owner->getHeader() == BB && owner->getParentLoop() == L) {
      const LoopPlan* cp = planFor(owner);
      if (cp && cp->kind == LoopPlan::Static) c = cp->staticCost;
    }
    dist[BB] = in + c;
    longest = std::max(longest, in + c);
  }
  return std::max<uint64_t>(longest, 1);
}

// Decided once, in plan(), as the placement sees the calls: by apply() the function's own
// summary is set, and a call to itself would no longer look like one that may return from
// a tick, nor have the unplaced callee's empty start.
void LoopPlanner::findTickedCalls() {
  if (!callTicks_) return;
  for (BasicBlock& BB : F_)
    for (Instruction& I : BB) {
      auto* CB = dyn_cast<CallBase>(&I);
      if (!CB || isa<InvokeInst>(CB) || !CM_.mayReturnFromTick(*CB, indirectReenters_)) continue;
      // What the call adds to its caller's path before the callee's first probe: its unit
      // and the callee's unprobed start, unless the callee's entry tick charges that (an
      // indirect call: an external call's cost).
      std::optional<CallSummary> s = CM_.callSummary(*CB);
      tickedCalls_[CB] = s ? 1 + (s->entryTick ? 0 : s->entry) : CM_.instCost(*CB);
    }
}

bool LoopPlanner::isTickedCall(const Instruction& I) const { return tickedCalls_.contains(&I); }

const CallBase* LoopPlanner::lastTickedCall(BasicBlock* BB) const {
  const CallBase* last = nullptr;
  for (Instruction& I : *BB)
    if (isTickedCall(I)) last = cast<CallBase>(&I);
  return last;
}

bool LoopPlanner::hasTickedCall(Loop* L) const {
  return llvm::any_of(L->blocks(), [&](BasicBlock* BB) { return lastTickedCall(BB) != nullptr; });
}

uint64_t LoopPlanner::blockCharge(Loop* L, BasicBlock* BB, bool threadBudget) const {
  uint64_t c = 0;
  if (threadBudget) {
    // A call that may return from a tick counts what the caller's path runs of it before
    // the callee's first probe (findTickedCalls). Its other end is charged by the tick it
    // returns from, or bounded from the clock read before it; the full summary cost (an
    // unplaced callee's end counts the bound) would make the budget read the clock on
    // every such call.
    for (const Instruction& I : *BB) {
      auto it = tickedCalls_.find(&I);
      c += it != tickedCalls_.end() ? it->second : CM_.instCost(I);
    }
  } else if (const CallBase* last = lastTickedCall(BB)) {
    for (const Instruction* I = last->getNextNode(); I; I = I->getNextNode()) c += CM_.instCost(*I);
  } else {
    c = CM_.blockCost(*BB);
  }
  for (Loop* child : L->getSubLoops()) {
    const LoopPlan* cp = planFor(child);
    if (cp && cp->kind == LoopPlan::Static && child->getLoopPreheader() == BB) c += cp->staticCost;
  }
  return c;
}

uint64_t LoopPlanner::computeMandatoryCost(Loop* L, bool threadBudget) const {
  BasicBlock* latch = L->getLoopLatch();
  if (!latch) return 0;
  uint64_t c = 0;
  for (BasicBlock* BB : L->blocks())
    if (LI_.getLoopFor(BB) == L && DT_.dominates(BB, latch)) c += blockCharge(L, BB, threadBudget);
  return std::max<uint64_t>(c, 1);
}

// Finds an affine header PHI with a constant step whose bit width can hold the mask.
bool LoopPlanner::findIV(Loop* L, LoopPlan& p, uint64_t stride) {
  BasicBlock* pre = L->getLoopPreheader();
  BasicBlock* latch = L->getLoopLatch();
  if (!pre || !latch) return false;
  for (PHINode& phi : L->getHeader()->phis()) {
    if (!phi.getType()->isIntegerTy() || !SE_.isSCEVable(phi.getType())) continue;
    auto* AR = dyn_cast<SCEVAddRecExpr>(SE_.getSCEV(&phi));
    if (!AR || AR->getLoop() != L || !AR->isAffine()) continue;
    auto* step = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE_));
    if (!step || step->getValue()->isZero()) continue;
    unsigned tz = step->getAPInt().countr_zero();
    if (Log2_64(stride) + tz >= phi.getType()->getIntegerBitWidth()) continue;
    Value* next = phi.getIncomingValueForBlock(latch);
    if (!isa<Instruction>(next)) continue;
    p.iv = &phi;
    p.ivStart = phi.getIncomingValueForBlock(pre);
    p.ivNext = next;
    p.stepZeros = tz;
    p.step = step->getValue()->getSExtValue();
    return true;
  }
  return false;
}

void LoopPlanner::plan() {
  // Children before parents: a parent's iteration cost depends on its children's plans.
  for (Loop* top : LI_)
    for (Loop* L : post_order(top)) postorder_.push_back(L);
  findTickedCalls();

  for (Loop* L : postorder_) {
    LoopPlan p;
    p.iterCost = computeIterCost(L);
    uint64_t C = p.iterCost;
    bool dynamicChildren = false, allBudgeted = true;
    for (Loop* child : L->getSubLoops()) {
      LoopPlan::Kind ck = planFor(child)->kind;
      if (ck != LoopPlan::Static) dynamicChildren = true;
      if (ck != LoopPlan::Static && ck != LoopPlan::Counter) allBudgeted = false;
    }
    // Whether L may count its own iterations (above).
    const bool ownCount = !dynamicChildren || (cfg_.compare.strideOverChildren && allBudgeted);

    unsigned maxTrip = SE_.getSmallConstantMaxTripCount(L);
    uint64_t stride = nearPow2(bound_ / C);
    p.mandatoryCost = L->getLoopLatch() ? computeMandatoryCost(L, false) : C;
    // A rare expensive branch would shrink a stride for every iteration; the budget
    // charges it only when it runs.
    const bool lopsided = 2 * p.mandatoryCost < C;
    if (maxTrip && uint64_t(maxTrip) * C <= bound_) {
      p.kind = LoopPlan::Static;
      p.staticCost = uint64_t(maxTrip) * C;
      p.why = "its largest trip count times its iteration cost fits under the bound";
    } else if (!(lopsided && cfg_.mode == Mode::Clock) && (2 * C >= bound_ || stride <= 1)) {
      p.kind = LoopPlan::Every;
      p.why = "one iteration costs at least half the bound";
    } else {
      // In clock mode a lopsided loop whose rare path costs half the bound or more (an
      // interpreter's dispatch loop, where a call into the call-graph cycle counts the
      // bound) still counts: the rare path charges the budget only when it runs, and the
      // common path reads no clock. A flag probe is one load, cheaper than the budget's
      // load, subtract and store, so flag mode keeps probing such a loop every iteration
      // (lua's flag build: +22% time with the budget, +8% without; bench/real_programs.py).
      p.stride = stride;
      // Adaptive gaps grow to maxGap iterations: the IV must hold that without wrapping.
      uint64_t widest = AP_ ? maxGap(stride) : stride;
      LoopPlan::Kind strided =
          (ownCount && !lopsided && findIV(L, p, widest)) ? LoopPlan::IVStride : LoopPlan::Counter;
      // Inside another loop, counting on the IV pays per iteration a compare with the next
      // probe (what the budget's subtract costs) unless exit sharing takes the latch's own
      // test, and per entry and exit the distance carried between entries: clock builds
      // ran up to 3% faster with such loops on the budget, at a cost to xz's yield error
      // (pass-results.md, "Loops inside others that cannot share their exit test"); flag
      // builds, which share no exit test, gained nothing.
      ExitTest shared;
      bool shifted = false;
      const bool keepsBudget =
          strided == LoopPlan::IVStride && L->getParentLoop() && cfg_.mode == Mode::Clock &&
          !(sharesExitTests() && shareableExitTest(L, L->getLoopLatch(), p, shared, shifted));
      if (keepsBudget) strided = LoopPlan::Counter;
      p.why = keepsBudget ? "inside another loop, with an exit test the probe cannot share: it charges the budget"
              : strided == LoopPlan::IVStride
                  ? (dynamicChildren ? "its dynamic children keep the budget; it counts its own induction variable"
                                     : "counts iterations on its induction variable")
              : !ownCount ? "children with dynamic costs charge the function's budget"
              : lopsided  ? "lopsided: the path every iteration runs costs under half the longest"
                          : "no induction variable fit to count on";
      if (2 * C < bound_ && canVersion(L, p)) {
        p.kind = LoopPlan::Version;
        p.slowKind = strided;
        p.why = "innermost with a trip count known at entry: a probe-free clone runs short trips";
      } else {
        p.kind = strided;
      }
    }
    if (p.kind != LoopPlan::Static && canPoll(L)) {
      p.kind = LoopPlan::Poll;
      p.why = "flag mode, branches of its own and no calls: reads the flag every iteration";
      BasicBlock* latch = L->getLoopLatch();
      const PollAt at = cfg_.compare.flagPollAt;
      p.pollAtLatch = at == PollAt::Latch || (at == PollAt::Auto && latch && latch->getSinglePredecessor());
    }
    // A post-call tick's stretch must end before the back-edge (Placement.cpp): at a probe
    // there (Every), or where the loop's iterations go on charging the thread's budget
    // the tick charged (Counter). Charging the function's budget instead, the tick would
    // have to lend it some: sqlite3's dispatch loop then read the clock about once per
    // opcode, its small loan spent by the opcodes between two calls
    // (docs/pass-results.md, "Post-call ticks").
    if (p.kind != LoopPlan::Every && hasTickedCall(L)) {
      if (p.kind != LoopPlan::Counter) p.why = "calls that may return from a tick: it charges the thread's tick budget";
      p.kind = LoopPlan::Counter;
      useThreadBudget(L, p);
    }
    // An Every loop of a function on a call-graph cycle, which charges the thread's budget
    // at its entry anyway, ticks on its back-edge: the tick charges the next iteration
    // (its longest path) and reads the clock when the budget runs out, where a probe read
    // it on every iteration. Such loops iterate over calls whose summaries cost half the
    // bound but often return at once (Lua's sort partition, around its comparator).
    if (p.kind == LoopPlan::Every && everyTicks_) p.latchTick = true;
    // Not over the thread's budget: it is no adaptive gap, and an over-charge there is a
    // clock read earlier.
    if ((p.kind == LoopPlan::Counter && !p.threadBudget) || (p.kind == LoopPlan::Version && p.slowKind == LoopPlan::Counter))
      chargeLikelyAtLatch(L, p);
    plans_[L] = p;
  }
}

void LoopPlanner::useThreadBudget(Loop* L, LoopPlan& p) const {
  p.threadBudget = true;
  p.chargedAtLatch.clear();  // the latch charges no likely block over the thread's budget
  if (L->getLoopLatch()) p.mandatoryCost = computeMandatoryCost(L, true);
}

void LoopPlanner::chargeThreadBudget(Loop* L) {
  LoopPlan& p = plans_[L];
  p.why = "a clock read before it would not fit: it charges the thread's tick budget";
  useThreadBudget(L, p);
}

// Puts the probe decision on the single latch, right before the back-edge branch.
void LoopPlanner::strideLatch(Loop* L, LoopPlan& p, LoopPlan::Kind kind) {
  SmallVector<BasicBlock*, 4> latches;
  L->getLoopLatches(latches);
  for (BasicBlock* latch : latches) {
    Instruction* term = latch->getTerminator();
    if (isa<CatchSwitchInst>(term) || latch->isEHPad()) continue;
    IRBuilder<> B(term);
    Value* fire = nullptr;
    if (kind == LoopPlan::Every) {
      if (p.latchTick) PE_.markTick(term, p.iterCost);
      else mark(term);
      continue;
    }
    if (kind == LoopPlan::IVStride && latches.size() == 1 && (AP_ || accountsEntries(L))) {
      ivLatch(L, p, latch);
      continue;
    }
    // Clock mode's fixed strides (-quanta-adaptive=0) share the exit compare too.
    if (kind == LoopPlan::IVStride && latches.size() == 1 && sharesExitTests() && adaptiveExitLatch(L, p, latch))
      continue;
    // A fixed stride counted from this entry's start: enough where entries need not add up
    // (a top-level loop, or one whose parent polls on every iteration).
    if (kind == LoopPlan::IVStride && latches.size() == 1 && p.ivNext) {
      Type* ty = p.ivNext->getType();
      APInt mask = APInt(ty->getIntegerBitWidth(), p.stride).shl(p.stepZeros) - 1;
      Value* done = B.CreateSub(p.ivNext, p.ivStart, "quanta.iters");
      Value* low = B.CreateAnd(done, ConstantInt::get(ty, mask), "quanta.stride");
      fire = B.CreateICmpEQ(low, ConstantInt::get(ty, 0), "quanta.fire");
    } else {
      budgetLatch(L, p, latch, latches.size() == 1);
      continue;
    }
    Instruction* then = SplitBlockAndInsertIfThen(fire, term, false, PE_.unlikely());
    mark(then);
  }
}

void LoopPlanner::apply(OptimizationRemarkEmitter* ORE) {
  // Version first: cloning must see the loops before their latches are split.
  for (Loop* L : postorder_) {
    LoopPlan& p = plans_[L];
    if (p.kind == LoopPlan::Version) versionLoop(L, p);
  }
  findFlushPoints();
  for (Loop* L : postorder_) {
    LoopPlan& p = plans_[L];
    notePlan(ORE, L, p, bound_);
    markingPollNest_ = inPollNest(L);
    switch (p.kind) {
      case LoopPlan::Static: ++stats_.statics; break;
      case LoopPlan::Version:
        ++stats_.versioned;
        if (p.slowKind == LoopPlan::Counter) chargeOptionalBlocks(L);
        strideLatch(L, p, p.slowKind);
        break;
      case LoopPlan::IVStride: ++stats_.ivStrided; strideLatch(L, p, p.kind); break;
      case LoopPlan::Counter:
        ++stats_.counted;
        chargeOptionalBlocks(L);
        strideLatch(L, p, p.kind);
        break;
      case LoopPlan::Every: ++stats_.every; strideLatch(L, p, p.kind); break;
      case LoopPlan::Poll: ++stats_.polled; pollFlag(L); break;
    }
  }
  flushPendingCharges();
}

}  // namespace quanta
