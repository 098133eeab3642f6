// The module pass: picks the functions to instrument and runs, per function, lock
// bracketing, loop planning, straight-line placement and probe expansion for one mode.
#pragma once

#include <optional>

#include "Config.h"
#include "llvm/IR/PassManager.h"

namespace quanta {

class QuantaPass : public llvm::PassInfoMixin<QuantaPass> {
 public:
  // forced: the mode named in the pipeline (quanta-clock, ...) overrides the configured one.
  explicit QuantaPass(std::optional<Mode> forced = std::nullopt, bool lockOnly = false)
      : forced_(forced), lockOnly_(lockOnly) {}
  llvm::PreservedAnalyses run(llvm::Module& M, llvm::ModuleAnalysisManager& MAM);
  static bool isRequired() { return true; }  // run at -O0 and on optnone functions too

 private:
  std::optional<Mode> forced_;
  bool lockOnly_;
};

}  // namespace quanta
