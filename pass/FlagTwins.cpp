#include "FlagTwins.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace quanta {

bool twinnable(const Function& F) {
  for (const BasicBlock& BB : F)
    if (BB.hasAddressTaken()) return false;
  return true;
}

static Function* cloneTwin(Function& F) {
  ValueToValueMapTy map;
  Function* T = CloneFunction(&F, map);
  T->setName(F.getName() + ".quanta_clock");
  // Internal and outside any comdat: each object keeps its own twin, and the linker
  // cannot drop it with a comdat group while the table still points at it.
  T->setComdat(nullptr);
  T->setLinkage(GlobalValue::InternalLinkage);
  T->setVisibility(GlobalValue::DefaultVisibility);
  T->setDLLStorageClass(GlobalValue::DefaultStorageClass);
  // A section of the original's own is copied; otherwise markSignalSafe gives the twin
  // quanta_text once it is instrumented (a comdat original has none; its twin does).
  return T;
}

FlagTwins makeClockTwins(Module& M, const SmallPtrSetImpl<Function*>& targets) {
  FlagTwins out;
  DenseMap<Function*, Function*> twinOf;
  SmallVector<Function*, 32> originals;
  for (Function& F : M)
    if (targets.contains(&F) && twinnable(F)) originals.push_back(&F);
  for (Function* F : originals) {
    Function* T = cloneTwin(*F);
    twinOf[F] = T;
    out.pairs.push_back({F, T});
    out.twins.insert(T);
  }
  for (auto [F, T] : out.pairs) {
    (void)F;
    for (Instruction& I : instructions(*T)) {
      auto* CB = dyn_cast<CallBase>(&I);
      if (!CB) continue;
      Function* callee = CB->getCalledFunction();  // null for calls through a pointer
      if (Function* twin = callee ? twinOf.lookup(callee) : nullptr) CB->setCalledFunction(twin);
    }
  }
  return out;
}

// A constructor or destructor: if the runtime is linked in (the weak `hook` resolved),
// calls it with the table (and the pair count, when `withCount`).
static Function* emitHookCaller(Module& M, StringRef name, StringRef hookName, GlobalVariable* table,
                                uint64_t count, bool withCount) {
  LLVMContext& C = M.getContext();
  Type* ptr = PointerType::getUnqual(C);
  Type* i64 = Type::getInt64Ty(C);
  FunctionType* hookTy = withCount ? FunctionType::get(Type::getVoidTy(C), {ptr, i64}, false)
                                   : FunctionType::get(Type::getVoidTy(C), {ptr}, false);
  Function* hook = M.getFunction(hookName);
  if (!hook) hook = Function::Create(hookTy, GlobalValue::ExternalWeakLinkage, hookName, M);
  else if (hook->isDeclaration() && !hook->hasExternalWeakLinkage()) hook->setLinkage(GlobalValue::ExternalWeakLinkage);

  Function* fn = Function::Create(FunctionType::get(Type::getVoidTy(C), false), GlobalValue::InternalLinkage, name, M);
  BasicBlock* entry = BasicBlock::Create(C, "entry", fn);
  BasicBlock* call = BasicBlock::Create(C, "call", fn);
  BasicBlock* done = BasicBlock::Create(C, "done", fn);
  IRBuilder<> B(entry);
  B.CreateCondBr(B.CreateIsNull(hook), done, call);
  B.SetInsertPoint(call);
  if (withCount) B.CreateCall(hookTy, hook, {table, ConstantInt::get(i64, count)});
  else B.CreateCall(hookTy, hook, {table});
  B.CreateBr(done);
  B.SetInsertPoint(done);
  B.CreateRetVoid();
  return fn;
}

void emitTwinTable(Module& M, const FlagTwins& twins) {
  if (twins.pairs.empty()) return;
  LLVMContext& C = M.getContext();
  Type* ptr = PointerType::getUnqual(C);
  // struct quanta_flag_twin { const void* flag_fn; const void* clock_fn; }
  StructType* pairTy = StructType::get(C, {ptr, ptr});
  SmallVector<Constant*, 32> rows;
  for (auto [F, T] : twins.pairs) rows.push_back(ConstantStruct::get(pairTy, {F, T}));
  ArrayType* tableTy = ArrayType::get(pairTy, rows.size());
  auto* table = new GlobalVariable(M, tableTy, /*isConstant=*/true, GlobalValue::PrivateLinkage,
                                   ConstantArray::get(tableTy, rows), "__quanta_flag_twins");
  Function* ctor = emitHookCaller(M, "__quanta_flag_twins_register", "quanta_register_flag_twins", table,
                                  rows.size(), true);
  Function* dtor = emitHookCaller(M, "__quanta_flag_twins_unregister", "quanta_unregister_flag_twins", table, 0,
                                  false);
  appendToGlobalCtors(M, ctor, 65535);
  appendToGlobalDtors(M, dtor, 65535);
}

}  // namespace quanta
