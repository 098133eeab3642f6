#include "LockGuard.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace quanta {

// std::mutex, std::shared_mutex and std::recursive_mutex lower to these (libstdc++ calls
// pthread directly since glibc 2.34 made __gthread_active_p always true).
LockRole lockRole(StringRef name) {
  return StringSwitch<LockRole>(name)
      .Cases("pthread_mutex_lock", "pthread_mutex_trylock", "pthread_mutex_timedlock",
             "pthread_mutex_clocklock", LockRole::Acquire)
      .Cases("pthread_spin_lock", "pthread_spin_trylock", LockRole::Acquire)
      .Cases("pthread_rwlock_rdlock", "pthread_rwlock_wrlock", "pthread_rwlock_tryrdlock",
             "pthread_rwlock_trywrlock", LockRole::Acquire)
      .Cases("pthread_rwlock_timedrdlock", "pthread_rwlock_timedwrlock",
             "pthread_rwlock_clockrdlock", "pthread_rwlock_clockwrlock", LockRole::Acquire)
      .Cases("pthread_mutex_unlock", "pthread_spin_unlock", "pthread_rwlock_unlock",
             LockRole::Release)
      .Default(LockRole::None);
}

unsigned guardLocks(Function& F) {
  Module& M = *F.getParent();
  LLVMContext& C = M.getContext();

  SmallVector<std::pair<CallInst*, LockRole>, 8> calls;
  for (BasicBlock& BB : F)
    for (Instruction& I : BB)
      if (auto* CI = dyn_cast<CallInst>(&I))
        if (Function* callee = CI->getCalledFunction()) {
          LockRole r = lockRole(callee->getName());
          if (r != LockRole::None) calls.push_back({CI, r});
        }

  if (calls.empty()) return 0;
  FunctionCallee disable = M.getOrInsertFunction("quanta_preempt_disable", Type::getVoidTy(C));
  FunctionCallee enable = M.getOrInsertFunction("quanta_preempt_enable", Type::getVoidTy(C));
  for (auto [CI, role] : calls) {
    const DebugLoc& dl = CI->getDebugLoc();
    if (role == LockRole::Release) {
      IRBuilder<> B(CI->getNextNode());
      B.CreateCall(enable)->setDebugLoc(dl);
      continue;
    }
    // Disable first so that no probe can fire between acquiring and disabling.
    IRBuilder<> B(CI);
    B.CreateCall(disable)->setDebugLoc(dl);
    // On failure (non-zero) the lock is not held: undo the disable.
    if (!CI->getType()->isIntegerTy()) continue;
    Instruction* next = CI->getNextNode();
    B.SetInsertPoint(next);
    Value* failed = B.CreateICmpNE(CI, ConstantInt::get(CI->getType(), 0), "quanta.lockfail");
    Instruction* then = SplitBlockAndInsertIfThen(
        failed, next, false, MDBuilder(C).createBranchWeights(1, 1u << 20));
    IRBuilder<> T(then);
    T.CreateCall(enable)->setDebugLoc(dl);
  }
  return calls.size();
}

}  // namespace quanta
