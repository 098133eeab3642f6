// Clock mode, before the loop unroller: pointer-chasing loops stay rolled.
//
// A loop probe fires at most once per iteration, so an iteration is the finest step at
// which a task can yield. A pointer chase (`p = p->next`) runs one dependent load per
// iteration; missing the cache, that is ~400 cycles on the dev VM, and the unroller makes
// one iteration of four of them. Its quanta then end on a ~1600-cycle grid, however well
// the probe aims: pointer_chase's mean yield error at 2 us was 700-790 cycles unrolled and
// 415-450 rolled, for the same run time (the loads wait on each other either way; unrolling
// saves only a counter update per hop).
#pragma once

#include <optional>

#include "llvm/IR/PassManager.h"

namespace quanta {

// Marks each innermost loop whose header carries a pointer loaded from an address based on
// that same pointer with llvm.loop.unroll.disable. Runs in clock mode with adaptive probes
// only (the configured mode, read as QuantaPass reads it).
class ChaseRollingPass : public llvm::PassInfoMixin<ChaseRollingPass> {
 public:
  explicit ChaseRollingPass(bool forced = false) : forced_(forced) {}
  llvm::PreservedAnalyses run(llvm::Function& F, llvm::FunctionAnalysisManager& FAM);

 private:
  bool forced_;  // opt -passes=quanta-chase-rolling: run whatever the configured mode
  std::optional<bool> enabled_;  // decided on the first function
};

}  // namespace quanta
