// How much a piece of IR counts toward the probe bound, and which calls leave the
// instrumented world. Costs are IR instructions: a proxy for time that the pass uses only
// to space probes; the probes themselves measure real time (clock) or read the flag.
#pragma once

#include <cstdint>

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

namespace quanta {

// The set of functions the pass instruments in this module, plus the cost of external calls.
class CostModel {
 public:
  CostModel(uint64_t extCallCost, const llvm::SmallPtrSetImpl<llvm::Function*>& instrumented)
      : extCallCost_(extCallCost), instrumented_(instrumented) {}

  uint64_t instCost(const llvm::Instruction& I) const;
  uint64_t blockCost(const llvm::BasicBlock& BB) const;
  // A call whose body the pass does not instrument (so it may run for a long time without
  // a probe): declarations, indirect calls, inline asm, runtime entry points excluded.
  bool isExternalCall(const llvm::CallBase& CB) const;

 private:
  uint64_t extCallCost_;
  const llvm::SmallPtrSetImpl<llvm::Function*>& instrumented_;
};

// Names owned by the runtime: never instrumented, never counted as external work.
bool isRuntimeName(llvm::StringRef name);
// The marker call the planners drop where a probe belongs; expanded at the end.
bool isProbeMarker(const llvm::Instruction& I);

}  // namespace quanta
