#include "ChaseRolling.h"

#include "Config.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"

using namespace llvm;

namespace quanta {

// The address `addr` is `p` plus constant offsets (a field of *p).
static bool basedOn(Value* addr, Value* p) {
  for (unsigned depth = 0; depth < 4; ++depth) {
    if (addr == p) return true;
    auto* gep = dyn_cast<GetElementPtrInst>(addr);
    if (!gep || !gep->hasAllConstantIndices()) return false;
    addr = gep->getPointerOperand();
  }
  return false;
}

// A header PHI `p` whose value on the back-edge is a load from p (or a field of it).
static bool chasesPointer(Loop* L) {
  BasicBlock* latch = L->getLoopLatch();
  if (!latch) return false;
  for (PHINode& phi : L->getHeader()->phis()) {
    if (!phi.getType()->isPointerTy()) continue;
    auto* next = dyn_cast<LoadInst>(phi.getIncomingValueForBlock(latch));
    if (next && L->contains(next) && basedOn(next->getPointerOperand(), &phi)) return true;
  }
  return false;
}

static void disableUnroll(Loop* L) {
  LLVMContext& C = L->getHeader()->getContext();
  MDNode* disable = MDNode::get(C, MDString::get(C, "llvm.loop.unroll.disable"));
  MDNode* old = L->getLoopID();
  SmallVector<Metadata*, 4> ops{nullptr};  // the loop ID refers to itself
  if (old)
    for (unsigned i = 1; i < old->getNumOperands(); ++i) ops.push_back(old->getOperand(i));
  ops.push_back(disable);
  MDNode* id = MDNode::getDistinct(C, ops);
  id->replaceOperandWith(0, id);
  L->setLoopID(id);
}

PreservedAnalyses ChaseRollingPass::run(Function& F, FunctionAnalysisManager& FAM) {
  if (!enabled_) {  // once per pipeline: the configuration does not change within it
    enabled_ = forced_;
    if (!forced_) {
      // A bad setting is reported once, by the module pass; here it only turns this off.
      std::string badSetting;
      Config cfg = loadConfig(badSetting);
      enabled_ = badSetting.empty() && cfg.mode == Mode::Clock && cfg.adaptive;
    }
  }
  if (!*enabled_) return PreservedAnalyses::all();
  if (F.isDeclaration() || F.hasFnAttribute("quanta_no_preempt")) return PreservedAnalyses::all();
  LoopInfo& LI = FAM.getResult<LoopAnalysis>(F);
  bool changed = false;
  for (Loop* L : LI.getLoopsInPreorder())
    if (L->isInnermost() && chasesPointer(L)) {
      disableUnroll(L);
      changed = true;
    }
  if (!changed) return PreservedAnalyses::all();
  PreservedAnalyses pa;  // metadata only: the CFG and every analysis of it stand
  pa.preserveSet<CFGAnalyses>();
  return pa;
}

}  // namespace quanta
