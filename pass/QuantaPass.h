// The module pass: picks the functions to instrument and runs, per function, lock
// bracketing, loop planning, straight-line placement and probe expansion for one mode.
#pragma once

#include <optional>

#include "Config.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Support/raw_ostream.h"

namespace quanta {

class QuantaPass : public llvm::PassInfoMixin<QuantaPass> {
 public:
  // forced: the mode named in the pipeline (quanta-clock, ...) overrides the configured one.
  explicit QuantaPass(std::optional<Mode> forced = std::nullopt, bool lockOnly = false)
      : forced_(forced), lockOnly_(lockOnly) {}
  llvm::PreservedAnalyses run(llvm::Module& M, llvm::ModuleAnalysisManager& MAM);
  static bool isRequired() { return true; }  // run at -O0 and on optnone functions too
  // Instruments M; returns whether anything changed. With `plans`, prints each function's
  // loop plan there as it goes, and leaves out the remarks and the stats line.
  bool instrument(llvm::Module& M, llvm::FunctionAnalysisManager& FAM, llvm::raw_ostream* plans);

 private:
  std::optional<Mode> forced_;
  bool lockOnly_;
};

// print<quanta-plan>: each function's loop plans (strategy, stride, budget, the rule that
// chose it) in the configured mode, without changing the module.
class PlanPrinterPass : public llvm::PassInfoMixin<PlanPrinterPass> {
 public:
  explicit PlanPrinterPass(llvm::raw_ostream& os) : os_(os) {}
  llvm::PreservedAnalyses run(llvm::Module& M, llvm::ModuleAnalysisManager& MAM);
  static bool isRequired() { return true; }

 private:
  llvm::raw_ostream& os_;
};

}  // namespace quanta
