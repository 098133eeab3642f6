#include "LoopPlanner.h"

#include "Decisions.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/ProfDataUtils.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

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

// Clone at most this many instructions for a short-loop fast path.
static constexpr unsigned kMaxVersionedInsts = 400;

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

uint64_t LoopPlanner::blockCharge(Loop* L, BasicBlock* BB) const {
  uint64_t c = CM_.blockCost(*BB);
  for (Loop* child : L->getSubLoops()) {
    const LoopPlan* cp = planFor(child);
    if (cp && cp->kind == LoopPlan::Static && child->getLoopPreheader() == BB) c += cp->staticCost;
  }
  return c;
}

uint64_t LoopPlanner::computeMandatoryCost(Loop* L) const {
  BasicBlock* latch = L->getLoopLatch();
  if (!latch) return 0;
  uint64_t c = 0;
  for (BasicBlock* BB : L->blocks())
    if (LI_.getLoopFor(BB) == L && DT_.dominates(BB, latch)) c += blockCharge(L, BB);
  return std::max<uint64_t>(c, 1);
}

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
    if (uint64_t c = blockCharge(L, BB)) likely.push_back({c, unsigned(likely.size()), BB});
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
      if (uint64_t c = blockCharge(L, BB)) optional.push_back({BB, c});
  for (auto [BB, c] : optional) {
    Instruction* term = BB->getTerminator();
    if (isa<CatchSwitchInst>(term) || BB->isEHPad()) continue;
    IRBuilder<> B(term);
    AllocaInst* bud = budget();
    B.CreateStore(B.CreateSub(B.CreateLoad(B.getInt64Ty(), bud), B.getInt64(c)), bud);
  }
}

// Nearest power of two (in log scale): flooring alone would probe up to twice as often as
// the bound asks.
static uint64_t nearPow2(uint64_t x) {
  if (x <= 1) return x;
  uint64_t lo = uint64_t(1) << Log2_64(x);
  return (x - lo < 2 * lo - x) ? lo : 2 * lo;
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

void LoopPlanner::plan() {
  // Children before parents: a parent's iteration cost depends on its children's plans.
  for (Loop* top : LI_)
    for (Loop* L : post_order(top)) postorder_.push_back(L);

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
    p.mandatoryCost = L->getLoopLatch() ? computeMandatoryCost(L) : C;
    // A rare expensive branch would shrink a stride for every iteration; the budget
    // charges it only when it runs.
    const bool lopsided = 2 * p.mandatoryCost < C;
    if (maxTrip && uint64_t(maxTrip) * C <= bound_) {
      p.kind = LoopPlan::Static;
      p.staticCost = uint64_t(maxTrip) * C;
      p.why = "its largest trip count times its iteration cost fits under the bound";
    } else if (2 * C >= bound_ || stride <= 1) {
      p.kind = LoopPlan::Every;
      p.why = "one iteration costs at least half the bound";
    } else {
      p.stride = stride;
      // Adaptive gaps grow to maxGap iterations: the IV must hold that without wrapping.
      uint64_t widest = AP_ ? maxGap(stride) : stride;
      LoopPlan::Kind strided =
          (ownCount && !lopsided && findIV(L, p, widest)) ? LoopPlan::IVStride : LoopPlan::Counter;
      p.why = strided == LoopPlan::IVStride
                  ? (dynamicChildren ? "its dynamic children keep the budget; it counts its own induction variable"
                                     : "counts iterations on its induction variable")
              : !ownCount ? "children with dynamic costs charge the function's budget"
              : lopsided  ? "lopsided: the path every iteration runs costs under half the longest"
                          : "no induction variable fit to count on";
      if (canVersion(L, p)) {
        p.kind = LoopPlan::Version;
        p.slowKind = strided;
        p.why = "innermost with a trip count known at entry: a probe-free clone runs short trips";
      } else {
        p.kind = strided;
      }
    }
    if (p.kind != LoopPlan::Static && canPoll(L) && !sharesExitOverChildren(L, p, dynamicChildren)) {
      p.kind = LoopPlan::Poll;
      p.why = "flag mode, branches of its own and no calls: reads the flag every iteration";
      BasicBlock* latch = L->getLoopLatch();
      const PollAt at = cfg_.compare.flagPollAt;
      p.pollAtLatch = at == PollAt::Latch || (at == PollAt::Auto && latch && latch->getSinglePredecessor());
    }
    if (p.kind == LoopPlan::Counter || (p.kind == LoopPlan::Version && p.slowKind == LoopPlan::Counter))
      chargeLikelyAtLatch(L, p);
    plans_[L] = p;
  }
  shareExitTestsUnderPolls();
  // A chain's second loop relies on its shared exit test and its folded offset.
  if (cfg_.compare.mergeExit) chainScans();
}

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

// Flag mode: a loop that can keep the flag pointer in a register, i.e. nothing in it but
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

// Whether L is a polled loop or inside one: its probes read the flag pointer's register.
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
  flagSlot_ = B.CreateAlloca(B.getPtrTy(), nullptr, "quanta.flagp.slot");
  return flagSlot_;
}

// The flag pointer lives in a slot promoted to a register: the outermost polled loop's
// preheader reads it, each polled header reads the flag through it, and only a slow path,
// the one thing in the nest that may switch threads, writes it again.
void LoopPlanner::pollFlag(Loop* L) {
  AllocaInst* slot = flagSlot();
  if (!inPollNest(L->getParentLoop())) {
    IRBuilder<> PB(L->getLoopPreheader()->getTerminator());
    PB.CreateStore(PE_.loadFlagPointer(PB), slot);
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

AllocaInst* LoopPlanner::budget() {
  if (budget_) return budget_;
  BasicBlock& entry = F_.getEntryBlock();
  IRBuilder<> B(&entry, entry.getFirstInsertionPt());
  budget_ = B.CreateAlloca(B.getInt64Ty(), nullptr, "quanta.budget");
  B.CreateStore(B.getInt64(bound_), budget_);
  if (AP_) budgetSite_ = AP_->newSite(F_, bound_);  // the first gap is the initial budget
  return budget_;
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
      mark(term);
      continue;
    }
    if (kind == LoopPlan::IVStride && latches.size() == 1 && (AP_ || accountsEntries(L))) {
      ivLatch(L, p, latch);
      continue;
    }
    // Flag mode: a counted loop's fixed stride shares the exit compare too.
    if (kind == LoopPlan::IVStride && latches.size() == 1 && cfg_.compare.mergeExit && adaptiveExitLatch(L, p, latch))
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
      // The budget counts down: one subtract whose sign flag feeds the branch. It goes on
      // the back-edge, after the loop's own exit test, when that edge can be split: the
      // exit branch (in a search loop the one that mispredicts) then does not wait behind
      // the budget's.
      AllocaInst* bud = budget();
      // Where several paths meet at the latch, a block of its own on the back-edge is one
      // more taken jump on each of them: the check goes to the top of the header instead
      // (still after the previous iteration's exit test). A single-path latch keeps it on
      // the split back-edge.
      bool atHeader = !latch->getSinglePredecessor();
      if (atHeader && latches.size() == 1 && latch != L->getHeader()) {
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
      Value* v = B.CreateLoad(B.getInt64Ty(), bud, "quanta.left");
      Value* n = B.CreateSub(v, B.getInt64(p.mandatoryCost));
      B.CreateStore(n, bud);
      fire = B.CreateICmpSLT(n, B.getInt64(0), "quanta.fire");
      Instruction* then = SplitBlockAndInsertIfThen(fire, term, false, PE_.unlikely());
      IRBuilder<> T(then);
      if (AP_) {
        // The refill is the next gap, aimed at the deadline; how far below zero the
        // budget went is part of what the last gap ran.
        Value* gap = AP_->probe(T, budgetSite_, bound_, maxGap(bound_), T.CreateNeg(n));
        T.CreateStore(gap, bud);
        ++stats_.adaptiveProbes;
        continue;
      }
      T.CreateStore(B.getInt64(bound_), bud);  // refill on probe
      mark(then);
      continue;
    }
    Instruction* then = SplitBlockAndInsertIfThen(fire, term, false, PE_.unlikely());
    mark(then);
  }
}

// The IV is compared with probe.at, a header PHI: each probe sets it `gap` steps ahead
// of where the IV is; the preheader sets it as far ahead of the start as the last entry
// left it (the static stride the first time). Wrapping arithmetic: the IV meets it exactly.
// Of two IV values `a` and `b` ahead of `from`, the one the IV reaches first.
static Value* reachedFirst(IRBuilder<>& B, Value* from, Value* a, Value* b, int64_t step) {
  Value* da = step > 0 ? B.CreateSub(a, from) : B.CreateSub(from, a);
  Value* db = step > 0 ? B.CreateSub(b, from) : B.CreateSub(from, b);
  return B.CreateSelect(B.CreateICmpULE(da, db), a, b);
}

// The limit the loop's test meets first: `probeAt` (ahead of `from`) or `t.end`. Equality
// exits meet `end` exactly, so the nearer of the two in the step's direction wins.
// Relational exits take the min (or max) of the two, which is `end` itself when `from`
// is already out of range.
static Value* nearerLimit(IRBuilder<>& B, Value* from, const ExitTest& t, Value* probeAt) {
  if (t.stay == ICmpInst::ICMP_NE) return reachedFirst(B, from, t.end, probeAt, t.step);
  const bool isSigned = ICmpInst::isSigned(t.stay), up = t.step > 0;
  Intrinsic::ID pick = up ? (isSigned ? Intrinsic::smin : Intrinsic::umin) : (isSigned ? Intrinsic::smax : Intrinsic::umax);
  return B.CreateBinaryIntrinsic(pick, t.end, probeAt, nullptr, "quanta.limit.next");
}

// `from + dist`, `dist` in the step's direction, saturated at the end of the test's range.
static Value* stepsAhead(IRBuilder<>& B, Value* from, const ExitTest& t, Value* dist, const Twine& name) {
  const bool isSigned = ICmpInst::isSigned(t.stay);
  if (t.step > 0)
    return B.CreateBinaryIntrinsic(isSigned ? Intrinsic::sadd_sat : Intrinsic::uadd_sat, from, dist, nullptr, name);
  return B.CreateBinaryIntrinsic(isSigned ? Intrinsic::ssub_sat : Intrinsic::usub_sat, from, B.CreateNeg(dist),
                                 nullptr, name);
}

// How far ahead of `from` the next probe goes: `from + dist` when the loop would still be
// running there, else `end` (nearerLimit). The add saturates unless `t.noWrap` says it
// cannot wrap.
static Value* limitAhead(IRBuilder<>& B, Value* from, const ExitTest& t, int64_t dist) {
  Type* ty = from->getType();
  Constant* d = ConstantInt::get(ty, dist, /*isSigned=*/true);
  if (t.stay == ICmpInst::ICMP_NE) return nearerLimit(B, from, t, B.CreateAdd(from, d, "quanta.probe.next"));
  Constant* magnitude = ConstantInt::get(ty, dist < 0 ? -dist : dist);
  const bool isSigned = ICmpInst::isSigned(t.stay), up = t.step > 0;
  Value* probeAt;
  if (t.noWrap)
    probeAt = up ? B.CreateAdd(from, magnitude, "quanta.probe.next", !isSigned, isSigned)
                 : B.CreateSub(from, magnitude, "quanta.probe.next", !isSigned, isSigned);
  else
    probeAt = stepsAhead(B, from, t, d, "quanta.probe.next");
  return nearerLimit(B, from, t, probeAt);
}

// Matches a latch whose conditional branch goes round while `x stay end`, with `end`
// invariant in L. Narrow (general = false): x is the IV's next value and the test is
// `!=`, the form the distance kept across entries relies on. General: x is any affine
// value of L with a constant step, and the test `!=` or, in the step's direction, `<` / `>`.
bool LoopPlanner::matchExitTest(Loop* L, BasicBlock* latch, const LoopPlan& p, bool general,
                                ExitTest& t, uint64_t aheadSteps) const {
  if (!aheadSteps) aheadSteps = p.stride;
  auto* br = dyn_cast<BranchInst>(latch->getTerminator());
  if (!br || !br->isConditional()) return false;
  auto* cmp = dyn_cast<ICmpInst>(br->getCondition());
  if (!cmp || !cmp->hasOneUse() || !cmp->getOperand(0)->getType()->isIntegerTy()) return false;
  BasicBlock* header = L->getHeader();
  unsigned stayIdx = br->getSuccessor(0) == header ? 0 : 1;
  if (br->getSuccessor(stayIdx) != header || L->contains(br->getSuccessor(1 - stayIdx))) return false;
  t = ExitTest{};
  t.br = br;
  t.cmp = cmp;
  t.exitIdx = 1 - stayIdx;
  t.exit = br->getSuccessor(t.exitIdx);
  t.stay = stayIdx == 0 ? cmp->getPredicate() : cmp->getInversePredicate();
  t.x = cmp->getOperand(0);
  t.end = cmp->getOperand(1);
  if (general && L->isLoopInvariant(t.x)) {
    std::swap(t.x, t.end);
    t.stay = ICmpInst::getSwappedPredicate(t.stay);
  }
  if (!L->isLoopInvariant(t.end)) return false;
  if (!general) {
    t.step = p.step;
    return t.x == p.ivNext && t.stay == ICmpInst::ICMP_NE;
  }
  auto* AR = dyn_cast<SCEVAddRecExpr>(SE_.getSCEV(t.x));
  if (!AR || AR->getLoop() != L || !AR->isAffine()) return false;
  auto* step = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE_));
  if (!step || step->getValue()->isZero() || step->getAPInt().getSignificantBits() > 32) return false;
  t.step = step->getValue()->getSExtValue();
  unsigned width = t.x->getType()->getIntegerBitWidth();
  if (Log2_64(aheadSteps) + Log2_64(uint64_t(t.step < 0 ? -t.step : t.step)) + 2 >= width) return false;
  bool up = t.step > 0;
  bool ok = t.stay == ICmpInst::ICMP_NE ||
            (up ? (t.stay == ICmpInst::ICMP_ULT || t.stay == ICmpInst::ICMP_SLT)
                : (t.stay == ICmpInst::ICMP_UGT || t.stay == ICmpInst::ICMP_SGT));
  if (!ok) return false;
  t.start = AR->getStart();
  // `from + dist` cannot wrap when from is the start or any value short of end.
  if (t.stay != ICmpInst::ICMP_NE) {
    APInt dist(width, aheadSteps * uint64_t(t.step < 0 ? -t.step : t.step));
    const SCEV* endS = SE_.getSCEV(t.end);
    bool overflow = false;
    for (const SCEV* v : {endS, t.start}) {
      bool o = false;
      if (ICmpInst::isSigned(t.stay)) {
        if (up) (void)SE_.getSignedRangeMax(v).sadd_ov(dist, o);
        else (void)SE_.getSignedRangeMin(v).ssub_ov(dist, o);
      } else {
        if (up) (void)SE_.getUnsignedRangeMax(v).uadd_ov(dist, o);
        else (void)SE_.getUnsignedRangeMin(v).usub_ov(dist, o);
      }
      overflow |= o;
      if (v == endS) t.noWrapFromEnd = !o;
    }
    t.noWrap = !overflow;
  }
  SCEVExpander exp(SE_, F_.getDataLayout(), "quanta.exit");
  return exp.isSafeToExpandAt(t.start, L->getLoopPreheader()->getTerminator());
}

// Which of adaptiveExitLatch's forms L's latch takes (None: ivLatch's compare of its own).
ExitShare LoopPlanner::exitShare(Loop* L, const LoopPlan& p, BasicBlock* latch, bool freshStride,
                                 ExitTest& t) const {
  if (matchExitTest(L, latch, p, /*general=*/freshStride, t)) return ExitShare::Narrow;
  if (freshStride || !matchExitTest(L, latch, p, /*general=*/true, t, AP_ ? maxGap(p.stride) : p.stride))
    return ExitShare::None;
  if (t.x->getType() != p.iv->getType() || t.step != p.step) return ExitShare::None;
  return ExitShare::Shifted;
}

// A counted loop whose latch exits on iv.next == end already compares the IV on every
// iteration: the probe shares that compare. The latch tests iv.next == limit, where limit
// is whichever of end and probe.at comes first; only when it hits does a block off the hot
// path tell the exit from a probe. The loop's hot path is then the plain loop's, with the
// bound in a register. Returns false (nothing changed) for any other latch.
//
// Directly under a parent that polls on every iteration (flag mode), each entry starts a
// whole stride: nothing is carried across entries, so the test may be any exit test
// matchExitTest accepts in general (a scanner's `i < n`, a pre-increment IV). A probe
// that is tracked across entries takes a general test too when the tested value moves
// with the IV (x = iv + off, `off` fixed for the entry, the same step): the probe's IV
// values are then shifted by `off`, and stay on x's lattice (x's first value plus steps),
// so a relational limit is met exactly. (A scanner's word loop, `while (i < n && s[i] !=
// ' ')`: its hot path had a compare of its own for the probe and kept the IV twice, +3
// instructions a byte. histogram's `i < n; i += 3`: +5 instructions a pixel.) Where a
// relational test provably cannot wrap `gap` steps past its end, its adds wrap freely:
// from a start already past the end, a wrapped first probe still ends the entry at its
// first test (it is reached at once), and what is saved for the next entry is a
// difference, exact modulo the width. Otherwise (a full-width `n`) they saturate, which
// can only bring a probe nearer.
bool LoopPlanner::adaptiveExitLatch(Loop* L, LoopPlan& p, BasicBlock* latch) {
  // Clock: the adaptive site. Flag: a fixed stride, with only the distance kept across
  // entries (one word on the stack), except under a parent that polls on every iteration:
  // that poll already bounds what repeated short entries run, so each entry starts a whole
  // stride and nothing is loaded before the loop or stored after it.
  const bool freshStride = !AP_ && L->getParentLoop() && planFor(L->getParentLoop())->kind == LoopPlan::Poll;
  const bool charge = chargesParent(L);
  ExitTest t;
  const ExitShare form = exitShare(L, p, latch, freshStride, t);
  if (form == ExitShare::None) return false;
  const bool shifted = form == ExitShare::Shifted;  // a general test under a tracked probe: x = iv + off
  const bool saturate = shifted && t.stay != ICmpInst::ICMP_NE && !t.noWrapFromEnd;
  BranchInst* br = t.br;
  Value* end = t.end;
  BasicBlock* exit = t.exit;
  unsigned exitIdx = t.exitIdx;
  BasicBlock* header = L->getHeader();

  Type* ty = t.x->getType();
  const SmallVector<BasicBlock*, 4> otherExits = exitingBlocksBesides(L, latch);
  BasicBlock* pre = L->getLoopPreheader();
  // x's value one step before its first test, less the IV's start (0 when x is the IV's
  // next value): the probe's IV values are x's.
  Value* off = nullptr;
  const SCEVConstant* constOff = nullptr;
  if (shifted) {
    SCEVExpander exp(SE_, F_.getDataLayout(), "quanta.exit");
    const SCEV* o = SE_.getMinusSCEV(SE_.getMinusSCEV(t.start, SE_.getSCEV(p.ivStart)),
                                     SE_.getConstant(ty, t.step, /*isSigned=*/true));
    off = exp.expandCodeFor(o, ty, pre->getTerminator());
    constOff = dyn_cast<SCEVConstant>(o);
  }
  // A constant `off` (a scanner's `i < n` tested before the increment: -1) is folded into
  // the distance kept across entries: the slot holds `probe.at - iv` rather than
  // `probe.at - x`, so an entry adds it to the IV's start and an exit subtracts the IV,
  // one instruction each instead of two (word_count: each word enters and leaves).
  const bool foldOff = constOff && !saturate && !freshStride && !charge;
  const int64_t offC = foldOff ? constOff->getAPInt().getSExtValue() : 0;
  // A scan chain's loop keeps the chain's slot when it means what this test counts: from
  // the IV's next value (narrow) or from the IV before the step (offset -step folded).
  ScanChain* chain = chainOf(L);
  if (chain && !(chain->beforeStep ? foldOff && offC == -p.step : !shifted)) chain = nullptr;
  Value* site = chain ? chain->site : AP_ ? AP_->newSite(F_, p.stride) : nullptr;
  AllocaInst* slot = chain                    ? chain->slot
                     : freshStride || charge ? nullptr
                                              : leftSlot(int64_t(p.stride) * p.step + offC);
  const bool ahead = !freshStride;  // the next probe's IV value is tracked (probe.at, limit)
  Constant* step = ConstantInt::get(ty, t.step, /*isSigned=*/true);
  IRBuilder<> PB(pre->getTerminator());
  Value* first = nullptr;
  Value* limit0 = nullptr;
  if (ahead) {
    Value* left0 = slot ? PB.CreateTrunc(PB.CreateLoad(PB.getInt64Ty(), slot, "quanta.probe.left"), ty)
                        : ConstantInt::get(ty, int64_t(p.stride) * p.step, /*isSigned=*/true);
    Value* base = off ? PB.CreateAdd(p.ivStart, off, "quanta.probe.base") : p.ivStart;
    // A saved distance is at least one step: x's first value plus the rest cannot wrap
    // backwards.
    if (foldOff)
      first = PB.CreateAdd(p.ivStart, left0, "quanta.probe.first");
    else
      first = saturate ? stepsAhead(PB, PB.CreateAdd(base, step), t, PB.CreateSub(left0, step), "quanta.probe.first")
                       : PB.CreateAdd(base, left0, "quanta.probe.first");
    if (chain) toSimplify_.push_back(first);
    limit0 = nearerLimit(PB, base, t, first);
  } else {
    // The tested value's first value, where the first stride starts.
    SCEVExpander exp(SE_, F_.getDataLayout(), "quanta.exit");
    Value* start = exp.expandCodeFor(t.start, ty, pre->getTerminator());
    limit0 = limitAhead(PB, start, t, int64_t(p.stride) * t.step);
  }

  LLVMContext& C = F_.getContext();
  BasicBlock* check = BasicBlock::Create(C, "quanta.hit", &F_, exit);
  BasicBlock* probe = BasicBlock::Create(C, "quanta.probe", &F_, exit);
  L->addBasicBlockToLoop(check, LI_);
  L->addBasicBlockToLoop(probe, LI_);

  // Where the next probe is, for the distance saved at the exit: not needed when none is.
  PHINode* at = slot ? PHINode::Create(ty, 2, "quanta.probe.at", header->begin()) : nullptr;
  PHINode* limit = PHINode::Create(ty, 2, "quanta.limit", header->begin());
  IRBuilder<> B(br);
  const ICmpInst::Predicate leave = ICmpInst::getInversePredicate(t.stay);
  Value* hit = B.CreateICmp(leave, t.x, limit, "quanta.at.limit");
  // The original branch's weights, if any, carry over (exit edge first): hitting the limit
  // is as rare as leaving was, plus the rare probe.
  MDNode* weights = nullptr;
  SmallVector<uint32_t, 2> w;
  if (extractBranchWeights(*br, w) && w.size() == 2)
    weights = MDBuilder(C).createBranchWeights(w[exitIdx], w[1 - exitIdx]);
  BranchInst* newBr = B.CreateCondBr(hit, check, header, weights);
  newBr->copyMetadata(*br, {LLVMContext::MD_loop});
  br->eraseFromParent();
  t.cmp->eraseFromParent();

  // The limit was hit: either the loop's end (leave, keeping how far the probe is for the
  // next entry; one step if it was due right now) or the probe.
  IRBuilder<> CB(check);
  // What the two blocks compute from the IV is hidden behind an empty asm: otherwise loop
  // strength reduction keeps `end - iv` as a second induction register on the hot path,
  // just for these rarely run blocks.
  auto* opaqueTy = FunctionType::get(ty, {ty}, false);
  Value* iv = CB.CreateCall(InlineAsm::get(opaqueTy, "", "=r,0", /*hasSideEffects=*/false), {t.x},
                            "quanta.iv");
  if (slot) {
    // Due right now: one step, so that the next entry's first test probes. (A relational
    // limit is met exactly too: probe.at is on the tested value's lattice.)
    Value* left = CB.CreateSub(at, iv);
    Value* due = CB.CreateICmpEQ(left, ConstantInt::get(ty, 0));
    if (shifted && (t.step == 1 || t.step == -1))  // `cmp $1; adc $0`: no constant kept in a register
      left = t.step > 0 ? CB.CreateAdd(left, CB.CreateZExt(due, ty)) : CB.CreateSub(left, CB.CreateZExt(due, ty));
    else
      left = CB.CreateSelect(due, step, left);
    if (foldOff && offC) left = CB.CreateAdd(left, ConstantInt::get(ty, offC, /*isSigned=*/true));
    CB.CreateStore(CB.CreateSExt(left, CB.getInt64Ty()), slot);
  }
  CB.CreateCondBr(CB.CreateICmp(leave, iv, end, "quanta.end"), exit, probe);
  for (PHINode& phi : exit->phis())
    for (unsigned i = 0, e = phi.getNumIncomingValues(); i != e; ++i)
      if (phi.getIncomingBlock(i) == latch) phi.setIncomingBlock(i, check);

  IRBuilder<> TB(probe);
  Value* next = nullptr;
  Value* limitNext = nullptr;
  if (ahead) {
    Value* gap = TB.getInt64(p.stride);
    if (AP_) gap = AP_->probe(TB, site, p.stride, maxGap(p.stride), TB.getInt64(0));
    Value* dist = TB.CreateMul(TB.CreateZExtOrTrunc(gap, ty), step);
    next = saturate ? stepsAhead(TB, iv, t, dist, "quanta.probe.next") : TB.CreateAdd(iv, dist, "quanta.probe.next");
    limitNext = nearerLimit(TB, iv, t, next);
  } else {
    limitNext = limitAhead(TB, iv, t, int64_t(p.stride) * t.step);
  }
  BranchInst* back = TB.CreateBr(header);
  if (!AP_) mark(back);

  // Header PHIs other than ours: the probe block is a second way around the loop.
  for (PHINode& phi : header->phis())
    if (&phi != at && &phi != limit) phi.addIncoming(phi.getIncomingValueForBlock(latch), probe);
  if (at) {
    at->addIncoming(first, pre);
    at->addIncoming(at, latch);
    at->addIncoming(next, probe);
  }
  limit->addIncoming(limit0, pre);
  limit->addIncoming(limit, latch);
  limit->addIncoming(limitNext, probe);
  if (slot) {
    saveLeftOnExits(L, otherExits, slot, at, p.iv, foldOff ? nullptr : off);
  } else if (charge) {
    SmallVector<BasicBlock*, 4> exiting(otherExits.begin(), otherExits.end());
    exiting.push_back(check);  // with the IV's next value, behind the empty asm
    Value* ivNext = off ? IRBuilder<>(check->getTerminator()).CreateSub(iv, off) : iv;
    chargeParentOnExits(L, exiting, p, [&](BasicBlock* from) { return from == check ? ivNext : p.iv; });
  }
  DT_.recalculate(F_);
  if (AP_) ++stats_.adaptiveProbes;
  return true;
}


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

template <typename EmitAt>
void LoopPlanner::onExitEdges(Loop* L, ArrayRef<BasicBlock*> exiting, EmitAt emit) {
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
template <typename IVAt>
void LoopPlanner::chargeParentOnExits(Loop* L, ArrayRef<BasicBlock*> exiting, const LoopPlan& p, IVAt ivAt) {
  AllocaInst* bud = budget();
  onExitEdges(L, exiting, [&](IRBuilder<>& B, BasicBlock* from) {
    Value* iv = ivAt(from);
    Value* d = B.CreateSub(iv, p.ivStart);
    if (p.step != 1) d = B.CreateExactSDiv(d, ConstantInt::get(iv->getType(), p.step, /*isSigned=*/true));
    Value* units = B.CreateMul(B.CreateSExtOrTrunc(d, B.getInt64Ty()), B.getInt64(p.iterCost), "quanta.entry.cost");
    B.CreateStore(B.CreateSub(B.CreateLoad(B.getInt64Ty(), bud), units), bud);
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
// of the IV (adaptive sites: the helper's gap; fixed strides: the stride).
void LoopPlanner::ivLatch(Loop* L, LoopPlan& p, BasicBlock* latch) {
  if (cfg_.compare.mergeExit && adaptiveExitLatch(L, p, latch)) return;
  const SmallVector<BasicBlock*, 4> otherExits = exitingBlocksBesides(L, latch);
  BasicBlock* pre = L->getLoopPreheader();
  Type* ty = p.ivNext->getType();
  const bool charge = chargesParent(L);
  // A loop probes when its stepped IV reaches probe.at; in a scan chain whose other loop's
  // shared exit test is on the IV before the step, when that IV does: one meaning for the
  // one slot (ScanChain::beforeStep).
  ScanChain* chain = chainOf(L);
  Value* tested = chain && chain->beforeStep ? static_cast<Value*>(p.iv) : p.ivNext;
  Value* site = chain ? chain->site : AP_ ? AP_->newSite(F_, p.stride) : nullptr;
  AllocaInst* slot = chain ? chain->slot : charge ? nullptr : leftSlot(int64_t(p.stride) * p.step);
  IRBuilder<> PB(pre->getTerminator());
  Constant* step = ConstantInt::get(ty, p.step, /*isSigned=*/true);
  Value* left = slot ? PB.CreateTrunc(PB.CreateLoad(PB.getInt64Ty(), slot, "quanta.probe.left"), ty)
                     : ConstantInt::get(ty, int64_t(p.stride) * p.step, /*isSigned=*/true);
  Value* first = PB.CreateAdd(p.ivStart, left, "quanta.probe.first");
  if (chain) toSimplify_.push_back(first);  // a chain's second loop may probe here too

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
    AllocaInst* bud = budget();
    Value* trips = FB.CreateAdd(FB.CreateZExtOrTrunc(btc, FB.getInt64Ty()), FB.getInt64(1));
    Value* spent = FB.CreateMul(trips, FB.getInt64(p.iterCost), "quanta.fastcost");
    FB.CreateStore(FB.CreateSub(FB.CreateLoad(FB.getInt64Ty(), bud), spent), bud);
  }
  DT_.recalculate(F_);
}

void LoopPlanner::apply(OptimizationRemarkEmitter* ORE) {
  // Version first: cloning must see the loops before their latches are split.
  for (Loop* L : postorder_) {
    LoopPlan& p = plans_[L];
    if (p.kind == LoopPlan::Version) versionLoop(L, p);
  }
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
}

}  // namespace quanta
