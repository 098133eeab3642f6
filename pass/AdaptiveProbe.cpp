#include "AdaptiveProbe.h"

#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace quanta {

// Site state: word 0 the clock when the current gap started (0: unknown), word 1 its
// length. Words 2 and 3: the cycles and units of the gap before the last one (units 0:
// none). Word 4: the site's lead, word 5 how early it aims; see helper(). (A loop site's
// distance to its next probe while the loop is not running is the planner's, in a slot
// promoted to a register.)
static constexpr unsigned kStartWord = 0, kGapWord = 1, kPrevTookWord = 2, kPrevUnitsWord = 3,
                          kLeadWord = 4, kAimWord = 5, kWords = 6;
// Keeps took * units in 64 bits when comparing two rates (units < 2^31).
static constexpr uint64_t kMaxMeasuredCycles = uint64_t(1) << 30;
// The older speed counts only when it is clearly slower (by more than kSlowerDen/kSlowerNum):
// a steady loop's small jitter would otherwise make every gap short and add probes.
static constexpr uint64_t kSlowerNum = 2, kSlowerDen = 3;
// A rate measured over a short gap is noisy (a few cache hits in a pointer walk make it look
// fast): a gap grows at most this many times over the one it was measured on.
static constexpr uint64_t kMaxGrowth = 4;

// A lead above this many cycles is a serial backlog (a chain of dependent misses): see
// helper().
static constexpr uint64_t kSerialLead = 1024;

// Keeps target * gap in 64 bits: target is at most the cycle cap (checked at load time to
// be < 2^32), gap is clamped to 2^31.
static constexpr uint64_t kMaxMeasuredGap = uint64_t(1) << 31;

static Value* word(IRBuilder<>& B, Value* site, unsigned i) {
  return B.CreateConstInBoundsGEP1_32(B.getInt64Ty(), site, i);
}

Value* AdaptiveProbe::newSite(Function& F, uint64_t initialGap) {
  BasicBlock& entry = F.getEntryBlock();
  IRBuilder<> B(&entry, entry.getFirstInsertionPt());
  AllocaInst* site = B.CreateAlloca(ArrayType::get(B.getInt64Ty(), kWords), nullptr, "quanta.gap");
  // Right after the alloca, before anything that could reach a probe.
  B.SetInsertPoint(site->getNextNode());
  B.CreateStore(B.getInt64(0), word(B, site, kStartWord));
  B.CreateStore(B.getInt64(initialGap), word(B, site, kGapWord));
  B.CreateStore(B.getInt64(0), word(B, site, kPrevUnitsWord));
  B.CreateStore(B.getInt64(0), word(B, site, kLeadWord));
  B.CreateStore(B.getInt64(0), word(B, site, kAimWord));
  return site;
}

// The rate of the last gap is cycles(measuredAt - start) per gap unit; the next gap covers
// what is left to the deadline (seen at `startsAt`, after a yield the new quantum's), capped
// in cycles and in units. Unknown rate: the static gap.
Value* AdaptiveProbe::planGap(IRBuilder<>& B, Value* site, Value* measuredAt, Value* startsAt,
                              Value* deadline, Value* staticGap, Value* maxGap, Value* overshoot) {
  Type* i64 = B.getInt64Ty();
  Value* startW = word(B, site, kStartWord);
  Value* gapW = word(B, site, kGapWord);
  Value* start = B.CreateLoad(i64, startW, "start");
  Value* done = B.CreateAdd(B.CreateLoad(i64, gapW), overshoot, "done");
  B.CreateStore(startsAt, startW);

  Value* ahead = B.CreateICmpUGT(deadline, startsAt);
  Value* left = B.CreateSelect(ahead, B.CreateSub(deadline, startsAt), B.getInt64(0), "left");
  Value* known = B.CreateAnd(B.CreateICmpNE(start, B.getInt64(0)), B.CreateICmpUGT(measuredAt, start));
  known = B.CreateAnd(known, B.CreateICmpNE(done, B.getInt64(0)), "rate.known");
  Value* took = B.CreateBinaryIntrinsic(Intrinsic::umax, B.CreateSub(measuredAt, start), B.getInt64(1), nullptr, "took");
  took = B.CreateBinaryIntrinsic(Intrinsic::umin, took, B.getInt64(kMaxMeasuredCycles));
  Value* units = B.CreateBinaryIntrinsic(Intrinsic::umin, done, B.getInt64(kMaxMeasuredGap));
  // Plan with the slower of the last two gaps' speeds: one gap that ran fast (a pointer walk
  // that hit in the cache for a while) must not stretch the next one past the deadline.
  Value* prevTookW = word(B, site, kPrevTookWord);
  Value* prevUnitsW = word(B, site, kPrevUnitsWord);
  Value* prevTook = B.CreateLoad(i64, prevTookW);
  Value* prevUnits = B.CreateLoad(i64, prevUnitsW);
  B.CreateStore(took, prevTookW);
  B.CreateStore(B.CreateSelect(known, units, B.getInt64(0)), prevUnitsW);
  Value* prevSlower = B.CreateAnd(B.CreateICmpNE(prevUnits, B.getInt64(0)),
                                  B.CreateICmpUGT(B.CreateMul(B.CreateMul(prevTook, units), B.getInt64(kSlowerNum)),
                                                  B.CreateMul(B.CreateMul(took, prevUnits), B.getInt64(kSlowerDen))));
  took = B.CreateSelect(prevSlower, prevTook, took);
  units = B.CreateSelect(prevSlower, prevUnits, units);
  // Aimed at `deadline` (the site's yield time, see helper()): gap = left * units / took + 1
  // is the first gap end at or after it at the measured speed. (Aiming short and correcting
  // with a second, short gap was tried: one more probe per quantum for no better error on
  // these kernels.)
  Value* target = B.CreateBinaryIntrinsic(Intrinsic::umin, left, B.getInt64(cfg_.probeMaxCycles), nullptr, "target");
  Value* gap = B.CreateAdd(B.CreateUDiv(B.CreateMul(target, units), took), B.getInt64(1));
  gap = B.CreateBinaryIntrinsic(Intrinsic::umin, gap, B.CreateMul(units, B.getInt64(kMaxGrowth)));
  gap = B.CreateBinaryIntrinsic(Intrinsic::umin, gap, maxGap);
  gap = B.CreateSelect(known, gap, staticGap, "gap");
  B.CreateStore(gap, gapW);
  return gap;
}

// i64 __quanta_clock_gap(ptr site, i64 staticGap, i64 maxGap, i64 overshoot): the probe.
// After a yield the rest runs in __quanta_clock_gap_resumed, out of line: the task may
// resume on another thread, and a thread-local address computed before the switch must
// not be reused (the runtime's probe_abi.cc reads its state afresh for the same reason).
Function* AdaptiveProbe::helper() {
  if (helper_) return helper_;
  LLVMContext& C = M_.getContext();
  Type* i64 = Type::getInt64Ty(C);
  Type* ptr = PointerType::getUnqual(C);
  GlobalVariable* deadlineTLS = PE_.tlsGlobal("quanta_deadline_tsc", i64, false);
  FunctionCallee slow = M_.getOrInsertFunction("quanta_probe_slow", Type::getVoidTy(C));

  auto make = [&](StringRef name, ArrayRef<Type*> params) {
    Function* F = Function::Create(FunctionType::get(i64, params, false), GlobalValue::PrivateLinkage,
                                   name, M_);
    F->addFnAttr(Attribute::NoInline);
    F->addFnAttr(Attribute::Cold);
    F->addFnAttr(Attribute::NoUnwind);
    return F;
  };
  // The clock read at a probe runs ahead of the work before it: out of order, the front
  // end reaches the probe while the loop's older loads are still in flight, and a yield
  // completes only once they have. This *lead* is ~3500 cycles in pointer_chase on the dev
  // VM (about ten dependent misses) and tens of cycles in a compute loop. On top of it, the
  // probe that yields comes some way past the time it was aimed at (half an iteration on
  // average; a whole one when the speed was misjudged). Aimed at the deadline itself, every
  // quantum ends late by the sum, whatever its length (pointer_chase: ~3800 cycles at 2 us
  // and at 10 us). So each site learns how early to aim: after each yield it compares the
  // runtime's stamp of when the quantum really ended (quanta_task_last_stop_tsc(), the
  // switch back included) with the deadline, and moves `aim` by an eighth of the
  // difference. Its probes then yield, and its gaps are planned, toward `deadline - aim`.
  // The lead itself is measured before each yield by reading the clock again in a way that
  // waits for all older instructions (rdtscp on x86: the yield waits for them anyway, so
  // this costs nothing); it is used where the plain clock misleads, below.
  //
  // A lead of more than kSerialLead cycles means the work in flight is a serial backlog:
  // the loop is a chain of dependent misses (pointer_chase: one 4x-unrolled iteration,
  // four misses, ~2000 cycles; lead ~3500). There the plain clock says little about how
  // far the work is: after a resume the front end runs two iterations ahead within ~50
  // cycles, and a yield decided on that clock lands anywhere within a few iterations. Such
  // a site reads the clock with rdtscp at every probe instead, i.e. waits for the backlog
  // first. That costs nothing a chain could overlap (each miss waits for the one before
  // anyway). Its lead is then zero by construction, so the one it measured is kept until
  // the function returns (the site's state starts afresh at each entry). Letting it decay
  // to be measured again was tried: each quantum spent finding it out again ends ~3500
  // cycles late, often enough to double pointer_chase's p99.
  auto serialized = [&](IRBuilder<>& B, const Twine& name) -> Value* {
    if (Triple(M_.getTargetTriple()).isX86())
      return B.CreateExtractValue(B.CreateIntrinsic(Intrinsic::x86_rdtscp, {}, {}), 0, name);
    return B.CreateIntrinsic(Intrinsic::readcyclecounter, {}, {}, nullptr, name);
  };
  auto lead = [&](IRBuilder<>& B, Value* site) { return B.CreateLoad(i64, word(B, site, kLeadWord), "lead"); };
  auto isSerial = [&](IRBuilder<>& B, Value* lead) { return B.CreateICmpUGT(lead, B.getInt64(kSerialLead), "serial"); };
  auto due = [&](IRBuilder<>& B, Value* site, Value* deadline) {
    Value* aim = B.CreateLoad(i64, word(B, site, kAimWord), "aim");
    return B.CreateBinaryIntrinsic(Intrinsic::usub_sat, deadline, aim, nullptr, "yield.at");
  };
  FunctionCallee lastStop = M_.getOrInsertFunction("quanta_task_last_stop_tsc", i64);
  Function* resumed = make("__quanta_clock_gap_resumed", {ptr, i64, i64, i64, i64, i64});
  {
    IRBuilder<> B(BasicBlock::Create(C, "entry", resumed));
    auto a = resumed->arg_begin();
    Value *site = a, *measuredAt = a + 1, *staticGap = a + 2, *maxGap = a + 3, *over = a + 4,
          *yieldedAt = a + 5;
    Value* now = B.CreateIntrinsic(Intrinsic::readcyclecounter, {}, {});
    Value* deadline = B.CreateAlignedLoad(i64, B.CreateThreadLocalAddress(deadlineTLS), Align(8));
    {
      // How late the quantum that just ended really was: the runtime's stop stamp (its
      // switch back included) against the deadline the probe yielded at. A stamp older
      // than the probe is not this yield's (none happened); a signal forces a yield with
      // deadline 0, and a quantum can end during a long preempt-disabled region: an error
      // beyond the cap measures those, not the site.
      Value* stop = B.CreateCall(lastStop, {}, "stop");
      Value* aimW = word(B, site, kAimWord);
      Value* aim = B.CreateLoad(i64, aimW);
      int64_t cap = int64_t(cfg_.probeMaxCycles);
      Value* err = B.CreateSub(stop, yieldedAt, "err");
      Value* plausible = B.CreateICmpULT(B.CreateAdd(err, B.getInt64(cap)), B.getInt64(2 * cap));
      plausible = B.CreateAnd(plausible, B.CreateICmpUGT(stop, measuredAt));
      Value* next = B.CreateAdd(aim, B.CreateAShr(err, 3));
      next = B.CreateBinaryIntrinsic(Intrinsic::smin, B.CreateBinaryIntrinsic(Intrinsic::smax, next, B.getInt64(0)),
                                     B.getInt64(cap));
      B.CreateStore(B.CreateSelect(plausible, next, aim, "aim.next"), aimW);
    }
    // The switch drained the pipeline: the loop restarts with no lead and builds it up
    // within its first iterations, which the clock then shows as a burst of speed. The
    // gap starts `lead` earlier, on the clock the loop's later probes read, so that its
    // speed is not overestimated and it ends where the work reaches the deadline (a
    // serial site's probes read a drained clock: no shift).
    Value* l = lead(B, site);
    l = B.CreateSelect(isSerial(B, l), B.getInt64(0), l);
    Value* startsAt = B.CreateBinaryIntrinsic(Intrinsic::usub_sat, now, l);
    B.CreateRet(planGap(B, site, measuredAt, startsAt, due(B, site, deadline), staticGap, maxGap, over));
  }

  helper_ = make("__quanta_clock_gap", {ptr, i64, i64, i64});
  auto a = helper_->arg_begin();
  Value *site = a, *staticGap = a + 1, *maxGap = a + 2, *over = a + 3;
  BasicBlock* entry = BasicBlock::Create(C, "entry", helper_);
  BasicBlock* late = BasicBlock::Create(C, "late", helper_);
  BasicBlock* onTime = BasicBlock::Create(C, "on_time", helper_);
  BasicBlock* readSerial = BasicBlock::Create(C, "read.serial", helper_, late);
  BasicBlock* readPlain = BasicBlock::Create(C, "read.plain", helper_, late);
  BasicBlock* check = BasicBlock::Create(C, "check", helper_, late);
  IRBuilder<> B(entry);
  PE_.emitExecCount(B);
  Value* siteLead = lead(B, site);
  Value* serial = isSerial(B, siteLead);
  B.CreateCondBr(serial, readSerial, readPlain);
  B.SetInsertPoint(readSerial);
  Value* nowSerial = serialized(B, "now.serial");
  B.CreateBr(check);
  B.SetInsertPoint(readPlain);
  Value* nowPlain = B.CreateIntrinsic(Intrinsic::readcyclecounter, {}, {}, nullptr, "now.plain");
  B.CreateBr(check);
  B.SetInsertPoint(check);
  PHINode* now = B.CreatePHI(i64, 2, "now");
  now->addIncoming(nowSerial, readSerial);
  now->addIncoming(nowPlain, readPlain);
  Value* deadline = B.CreateAlignedLoad(i64, B.CreateThreadLocalAddress(deadlineTLS), Align(8), "deadline");
  Value* yieldAt = due(B, site, deadline);
  B.CreateCondBr(B.CreateICmpUGE(now, yieldAt), late, onTime);

  B.SetInsertPoint(late);
  // The yield waits for the older work anyway, so waiting for it here costs nothing.
  Value* drained = serialized(B, "drained");
  // The lead: averaged with the last one, and capped (an interrupt between the two reads
  // must not distort the next quantum's first gap much). A serial site's is kept. It turns
  // serial only when two yields in a row measure a serial lead: one interrupt between the
  // two reads must not make a loop with parallel misses wait for them at every probe.
  Value* measuredLead = B.CreateBinaryIntrinsic(Intrinsic::umin, B.CreateBinaryIntrinsic(Intrinsic::usub_sat, drained, now),
                                                B.getInt64(cfg_.probeMaxCycles));
  Value* averaged = B.CreateLShr(B.CreateAdd(siteLead, measuredLead), 1);
  Value* twice = B.CreateAnd(B.CreateICmpUGE(siteLead, B.getInt64(kSerialLead)),
                             B.CreateICmpUGT(measuredLead, B.getInt64(kSerialLead)));
  averaged = B.CreateSelect(twice, averaged, B.CreateBinaryIntrinsic(Intrinsic::umin, averaged, B.getInt64(kSerialLead)));
  B.CreateStore(B.CreateSelect(serial, siteLead, averaged, "lead.next"), word(B, site, kLeadWord));
  B.CreateCall(slow);
  B.CreateRet(B.CreateCall(resumed, {site, now, staticGap, maxGap, over, deadline}));

  B.SetInsertPoint(onTime);
  B.CreateRet(planGap(B, site, now, now, yieldAt, staticGap, maxGap, over));
  return helper_;
}

Value* AdaptiveProbe::probe(IRBuilder<>& B, Value* site, uint64_t staticGap, uint64_t maxGap,
                            Value* overshoot) {
  if (Triple(M_.getTargetTriple()).isX86()) {
    // The site's address is a constant offset from the stack pointer, but machine LICM
    // hoists any such address out of the loop, and the register allocator keeps it in a
    // register there: with a few sites per nest, the loop's own values spill instead
    // (word_count: two spills and two reloads per word). Computed by an asm with side
    // effects right at the call, it is never hoisted and takes no register in the loop.
    auto* fty = FunctionType::get(B.getPtrTy(), {B.getPtrTy()}, false);
    CallInst* at = B.CreateCall(InlineAsm::get(fty, "leaq $1, $0", "=r,*m", /*hasSideEffects=*/true), {site},
                                "quanta.site");
    at->addParamAttr(0, Attribute::get(B.getContext(), Attribute::ElementType, ArrayType::get(B.getInt64Ty(), kWords)));
    site = at;
  }
  CallInst* call = B.CreateCall(helper(), {site, B.getInt64(staticGap), B.getInt64(std::max(maxGap, staticGap)),
                                           overshoot},
                                "quanta.gap.next");
  return call;
}

}  // namespace quanta
