#include "LibraryCallTiming.h"

#include "ProbeEmitter.h"

#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace quanta {

// Calls whose time is the library's: a function TargetLibraryInfo recognizes (malloc, free,
// read, qsort, ...), or a memory intrinsic the backend may lower to a libc call (a length
// known at compile time is expanded inline: nothing to time). A call that never returns
// (exit, abort) has no after.
static bool isLibraryCall(const CallInst& call, const TargetLibraryInfo& TLI) {
  if (call.doesNotReturn() || call.isInlineAsm()) return false;
  if (const auto* mem = dyn_cast<MemIntrinsic>(&call)) return !isa<ConstantInt>(mem->getLength());
  const Function* callee = call.getCalledFunction();
  LibFunc lib;
  return callee && callee->isDeclaration() && !callee->isIntrinsic() && TLI.getLibFunc(*callee, lib) &&
         TLI.has(lib);
}

void timeLibraryCalls(Module& M, FunctionAnalysisManager& FAM, const SmallPtrSetImpl<Function*>& targets) {
  for (Function* F : targets) {
    const TargetLibraryInfo& TLI = FAM.getResult<TargetLibraryAnalysis>(*F);
    SmallVector<CallInst*, 16> calls;
    for (Instruction& I : instructions(*F))
      if (auto* call = dyn_cast<CallInst>(&I); call && isLibraryCall(*call, TLI)) calls.push_back(call);
    for (CallInst* call : calls) {
      IRBuilder<> B(call);
      Value* before = B.CreateIntrinsic(Intrinsic::readcyclecounter, {}, {}, nullptr, "quanta.lib.start");
      B.SetInsertPoint(call->getNextNode());
      Value* after = B.CreateIntrinsic(Intrinsic::readcyclecounter, {}, {});
      addToStatCounter(B, M, "quanta_stat_library_cycles", B.CreateSub(after, before));
    }
    if (!calls.empty()) FAM.invalidate(*F, PreservedAnalyses::none());
  }
}

}  // namespace quanta
