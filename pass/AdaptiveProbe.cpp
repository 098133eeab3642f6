#include "AdaptiveProbe.h"

#include "llvm/IR/InlineAsm.h"
#include "llvm/TargetParser/Triple.h"
#include "quanta/clock_gap.h"

using namespace llvm;

namespace quanta {

static Value* word(IRBuilder<>& B, Value* site, unsigned i) {
  return B.CreateConstInBoundsGEP1_32(B.getInt64Ty(), site, i);
}

static Type* siteType(LLVMContext& C) { return ArrayType::get(Type::getInt64Ty(C), QUANTA_GAP_WORDS); }

// START = 0 marks a fresh site: quanta_clock_gap() takes its other words as 0 (speed
// unknown, nothing learnt) and writes them itself, so that an entry pays one store per site
// (functions called often with short loops, like zlib's longest_match, pay it every call).
// The site's state starts afresh at each function entry.
Value* AdaptiveProbe::newSite(Function& F) {
  BasicBlock& entry = F.getEntryBlock();
  IRBuilder<> B(&entry, entry.getFirstInsertionPt());
  AllocaInst* site = B.CreateAlloca(siteType(F.getContext()), nullptr, "quanta.gap");
  // Right after the alloca, before anything that could reach a probe.
  B.SetInsertPoint(site->getNextNode());
  B.CreateStore(B.getInt64(0), word(B, site, QUANTA_GAP_START));
  return site;
}

Value* AdaptiveProbe::probe(IRBuilder<>& B, Value* site, uint64_t staticGap, uint64_t maxGap,
                            Value* overshoot) {
  PE_.emitExecCount(B);
  if (Triple(M_.getTargetTriple()).isX86()) {
    // The site's address is a constant offset from the stack pointer, but machine LICM
    // hoists any such address out of the loop, and the register allocator keeps it in a
    // register there: with a few sites per nest, the loop's own values spill instead
    // (word_count: two spills and two reloads per word). Computed by an asm with side
    // effects right at the call, it is never hoisted and takes no register in the loop.
    auto* fty = FunctionType::get(B.getPtrTy(), {B.getPtrTy()}, false);
    CallInst* at = B.CreateCall(InlineAsm::get(fty, "leaq $1, $0", "=r,*m", /*hasSideEffects=*/true), {site},
                                "quanta.site");
    at->addParamAttr(0, Attribute::get(B.getContext(), Attribute::ElementType, siteType(B.getContext())));
    site = at;
  }
  Type* i64 = B.getInt64Ty();
  FunctionCallee gap = M_.getOrInsertFunction("quanta_clock_gap", i64, B.getPtrTy(), i64, i64, i64, i64);
  if (auto* F = dyn_cast<Function>(gap.getCallee())) {
    // Cold: the call is the loop's rare path, and codegen lays out the blocks that call a
    // cold function out of the loop's way.
    F->addFnAttr(Attribute::Cold);
    F->addFnAttr(Attribute::NoUnwind);
  }
  return B.CreateCall(gap, {site, B.getInt64(staticGap), B.getInt64(std::max(maxGap, staticGap)), overshoot,
                            B.getInt64(cfg_.probeMaxCycles)},
                      "quanta.gap.next");
}

}  // namespace quanta
