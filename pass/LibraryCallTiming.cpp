#include "LibraryCallTiming.h"

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

unsigned timeLibraryCalls(Module& M, FunctionAnalysisManager& FAM, const SmallPtrSetImpl<Function*>& targets) {
  Type* i64 = Type::getInt64Ty(M.getContext());
  // One process-wide word, as quanta_stat_probes_executed (the benchmarks that read it
  // run their work on one thread).
  GlobalVariable* total = M.getNamedGlobal("quanta_stat_library_cycles");
  if (!total)
    total = new GlobalVariable(M, i64, false, GlobalValue::WeakAnyLinkage, ConstantInt::get(i64, 0),
                               "quanta_stat_library_cycles");
  unsigned timed = 0;
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
      Value* sum = B.CreateAdd(B.CreateLoad(i64, total), B.CreateSub(after, before));
      B.CreateStore(sum, total);
      ++timed;
    }
    if (!calls.empty()) FAM.invalidate(*F, PreservedAnalyses::none());
  }
  return timed;
}

}  // namespace quanta
