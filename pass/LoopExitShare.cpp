// IVStride loops whose exit test carries the probe: the latch compares the IV with
// whichever of the loop's end and the next probe comes first, so the hot path is the
// plain loop's; a block off it tells an exit from a probe.
#include "LoopPlanner.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/ProfDataUtils.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace llvm;

namespace quanta {

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
  // `end + dist` cannot wrap (nor, then, any value short of end plus dist).
  if (t.stay != ICmpInst::ICMP_NE) {
    APInt dist(width, aheadSteps * uint64_t(t.step < 0 ? -t.step : t.step));
    const SCEV* endS = SE_.getSCEV(t.end);
    bool o = false;
    if (ICmpInst::isSigned(t.stay)) {
      if (up) (void)SE_.getSignedRangeMax(endS).sadd_ov(dist, o);
      else (void)SE_.getSignedRangeMin(endS).ssub_ov(dist, o);
    } else {
      if (up) (void)SE_.getUnsignedRangeMax(endS).uadd_ov(dist, o);
      else (void)SE_.getUnsignedRangeMin(endS).usub_ov(dist, o);
    }
    t.noWrapFromEnd = !o;
  }
  SCEVExpander exp(SE_, F_.getDataLayout(), "quanta.exit");
  return exp.isSafeToExpandAt(t.start, L->getLoopPreheader()->getTerminator());
}

// A counted loop whose latch exits on iv.next == end already compares the IV on every
// iteration: the probe shares that compare. The latch tests iv.next == limit, where limit
// is whichever of end and probe.at comes first; only when it hits does a block off the hot
// path tell the exit from a probe. The loop's hot path is then the plain loop's, with the
// bound in a register. Returns false (nothing changed) for any other latch. Clock mode
// only (adaptive sites, or fixed strides with -quanta-adaptive=0): flag mode's fixed
// strides gained nothing from it on the real programs (pass-results.md, "What two loop
// rules buy").
//
// The probe is tracked across entries. It takes a general exit test (a scanner's `i < n`,
// a pre-increment IV) when the tested value moves
// with the IV (x = iv + off, `off` fixed for the entry, the same step): the probe's IV
// values are then shifted by `off`, and stay on x's lattice (x's first value plus steps),
// so a relational limit is met exactly. (A scanner's word loop, `while (i < n && s[i] !=
// ' ')`: its hot path had a compare of its own for the probe and kept the IV twice, +3
// instructions a byte. histogram's `i < n; i += 3`: +5 instructions a pixel.) Where a
// relational test provably cannot wrap `gap` steps past its end, its adds wrap freely:
// from a start already past the end, a wrapped first probe still ends the entry at its
// first test (it is reached at once), and what is saved for the next entry is a
// difference, exact modulo the width. Otherwise (a full-width `n`) they saturate, which
// can only bring a probe nearer; the saved distance may then be under a step, and the
// next entry takes one step at least.
// The latch test exit sharing takes for L's probe: the narrow form (iv.next != end), else
// a general test under a tracked probe, `shifted`: x = iv + off with the IV's type and step.
// The planner asks it too (a clock loop inside another counts on its IV only with one).
bool LoopPlanner::shareableExitTest(Loop* L, BasicBlock* latch, const LoopPlan& p, ExitTest& t,
                                    bool& shifted) const {
  shifted = false;
  if (matchExitTest(L, latch, p, /*general=*/false, t)) return true;
  shifted = true;
  return matchExitTest(L, latch, p, /*general=*/true, t, AP_ ? maxGap(p.stride) : p.stride) &&
         t.x->getType() == p.iv->getType() && t.step == p.step;
}

bool LoopPlanner::adaptiveExitLatch(Loop* L, LoopPlan& p, BasicBlock* latch) {
  // The adaptive site, or (-quanta-adaptive=0) a fixed stride with only the distance kept
  // across entries (one word on the stack).
  const bool charge = chargesParent(L);
  // Neither form of a shareable test: ivLatch's compare of its own.
  ExitTest t;
  bool shifted = false;
  if (!shareableExitTest(L, latch, p, t, shifted)) return false;
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
  const bool foldOff = constOff && !saturate && !charge;
  const int64_t offC = foldOff ? constOff->getAPInt().getSExtValue() : 0;
  Value* site = AP_ ? AP_->newSite(F_) : nullptr;
  AllocaInst* slot = charge ? nullptr : leftSlot(int64_t(p.stride) * p.step + offC);
  Constant* step = ConstantInt::get(ty, t.step, /*isSigned=*/true);
  IRBuilder<> PB(pre->getTerminator());
  Value* left0 = slot ? PB.CreateTrunc(PB.CreateLoad(PB.getInt64Ty(), slot, "quanta.probe.left"), ty)
                      : ConstantInt::get(ty, int64_t(p.stride) * p.step, /*isSigned=*/true);
  Value* base = off ? PB.CreateAdd(p.ivStart, off, "quanta.probe.base") : p.ivStart;
  Value* first = nullptr;
  if (foldOff) {
    first = PB.CreateAdd(p.ivStart, left0, "quanta.probe.first");
  } else if (saturate) {
    // From x's first value, the rest of the distance, which must not point backwards:
    // a saturated probe.at (the range's end) is off x's lattice, so an entry that ran
    // to its end can save less than one step (bzip2's `j >= 0; j--`, unrolled by two,
    // ended at 1 with probe.at 0 and saved -1); unclamped, the next entry's saturating
    // add then put its first probe at the range's end, and that whole entry, 10^5
    // iterations, ran probe-free. At least one step: probe at the first test.
    Intrinsic::ID toward = t.step > 0 ? Intrinsic::smax : Intrinsic::smin;
    Value* atLeastStep = PB.CreateBinaryIntrinsic(toward, left0, step, nullptr, "quanta.probe.left.step");
    first = stepsAhead(PB, PB.CreateAdd(base, step), t, PB.CreateSub(atLeastStep, step), "quanta.probe.first");
  } else {
    first = PB.CreateAdd(base, left0, "quanta.probe.first");
  }
  Value* limit0 = nearerLimit(PB, base, t, first);

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
  if (slot && saturate) {
    // The entry clamps what it loads to one step or more.
    CB.CreateStore(CB.CreateSExt(CB.CreateSub(at, iv), CB.getInt64Ty()), slot);
  } else if (slot) {
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
  Value* gap = TB.getInt64(p.stride);
  if (AP_) gap = AP_->probe(TB, site, p.stride, maxGap(p.stride), TB.getInt64(0));
  Value* dist = TB.CreateMul(TB.CreateZExtOrTrunc(gap, ty), step);
  Value* next = saturate ? stepsAhead(TB, iv, t, dist, "quanta.probe.next") : TB.CreateAdd(iv, dist, "quanta.probe.next");
  Value* limitNext = nearerLimit(TB, iv, t, next);
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

}  // namespace quanta
