// Entry point of libquanta-pass.so. Two ways in:
//  - clang: -fpass-plugin=libquanta-pass.so adds the pass at the optimizer-last extension
//    point, after vectorization and unrolling, so probes neither block the vectorizer nor
//    get duplicated by the unroller. The mode comes from -mllvm -quanta-mode or QUANTA_MODE.
//  - opt: -load-pass-plugin=libquanta-pass.so -passes=quanta-clock (or quanta-flag,
//    quanta-counter, quanta for the configured mode, quanta-locks for bracketing only;
//    quanta-chase-rolling, a function pass, for the clock mode's early step alone;
//    print<quanta-plan> prints the loop plans of the configured mode and changes nothing).
//  Clock mode also adds ChaseRollingPass at the vectorizer-start extension point.
#include "ChaseRolling.h"
#include "QuantaPass.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;

static void registerCallbacks(PassBuilder& PB) {
  // Before the vectorizer and the runtime unroller (see ChaseRolling.h).
  PB.registerVectorizerStartEPCallback([](FunctionPassManager& FPM, OptimizationLevel) {
    FPM.addPass(quanta::ChaseRollingPass());
  });
  PB.registerOptimizerLastEPCallback([](ModulePassManager& MPM, OptimizationLevel) {
    MPM.addPass(quanta::QuantaPass());
  });
  PB.registerPipelineParsingCallback(
      [](StringRef name, ModulePassManager& MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (name == "quanta") MPM.addPass(quanta::QuantaPass());
        else if (name == "quanta-clock") MPM.addPass(quanta::QuantaPass(quanta::Mode::Clock));
        else if (name == "quanta-flag") MPM.addPass(quanta::QuantaPass(quanta::Mode::Flag));
        else if (name == "quanta-counter") MPM.addPass(quanta::QuantaPass(quanta::Mode::Counter));
        else if (name == "quanta-locks") MPM.addPass(quanta::QuantaPass(quanta::Mode::None, true));
        else if (name == "print<quanta-plan>") MPM.addPass(quanta::PlanPrinterPass(llvm::errs()));
        else return false;
        return true;
      });
  PB.registerPipelineParsingCallback(
      [](StringRef name, FunctionPassManager& FPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (name != "quanta-chase-rolling") return false;
        FPM.addPass(quanta::ChaseRollingPass(/*forced=*/true));
        return true;
      });
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "quanta", "0.1", registerCallbacks};
}
