// Clock mode's loop probes aim at the deadline instead of firing at a fixed stride.
//
// A fixed stride has to be short enough that the first probe after the deadline comes
// soon (precision), and every probe reads the clock (rdtsc, ~25 cycles here) whether the
// deadline is near or not (overhead). A loop probe that knows how fast its loop runs can
// do both: each time it fires it reads the clock anyway, so it measures the cycles the
// last gap took, and schedules the next probe where the deadline will be: far from the
// deadline the gap is long (at most a cap in cycles and a multiple of the static stride),
// close to it the gap ends right after it.
//
// The gap is counted by the loop (in iterations for an induction-variable loop, in cost
// units for the function's loop budget); the clock work is in one out-of-line helper per
// module, __quanta_clock_gap, so the loop's hot path stays a compare and a branch.
//
// Per probe site, two 64-bit words on the function's stack: the clock when the current
// gap started (0: unknown, e.g. at function entry) and the gap's length. A site whose
// rate is unknown uses its static stride, so the first gap after function entry is as
// short as without adaptation.
#pragma once

#include <cstdint>

#include "Config.h"
#include "ProbeEmitter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace quanta {

class AdaptiveProbe {
 public:
  AdaptiveProbe(llvm::Module& M, const Config& cfg, ProbeEmitter& PE) : M_(M), cfg_(cfg), PE_(PE) {}

  // A site's state, allocated in F's entry block, where it gets a first gap of
  // `initialGap` units and "rate unknown".
  llvm::Value* newSite(llvm::Function& F, uint64_t initialGap);
  // At a probe: checks the deadline (yields if it passed) and returns the next gap, in
  // [1, maxGap]; `overshoot` is how far past its gap the caller went (budget below zero).
  llvm::Value* probe(llvm::IRBuilder<>& B, llvm::Value* site, uint64_t staticGap, uint64_t maxGap,
                     llvm::Value* overshoot);

 private:
  llvm::Function* helper();
  llvm::Value* planGap(llvm::IRBuilder<>& B, llvm::Value* site, llvm::Value* measuredAt,
                       llvm::Value* startsAt, llvm::Value* deadline, llvm::Value* staticGap,
                       llvm::Value* maxGap, llvm::Value* overshoot);

  llvm::Module& M_;
  const Config& cfg_;
  ProbeEmitter& PE_;
  llvm::Function* helper_ = nullptr;
};

}  // namespace quanta
