// Clock mode's loop probes aim at the deadline instead of firing at a fixed stride.
//
// A loop counts a gap (iterations for an induction-variable loop, cost units for the
// function's loop budget) down to its next probe, inline: the hot path stays a compare and
// a branch. When the gap runs out the loop calls the runtime's quanta_clock_gap()
// (include/quanta/clock_gap.h; the rules, with unit tests, in src/preempt/clock_gap.cc):
// it reads the clock, yields past the deadline, and returns the next gap, planned from how
// fast the last gaps ran. Here: the site's state words in the function's frame, and the call.
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

  // A site's state, allocated in F's entry block, where it is marked fresh ("rate
  // unknown"; its first gap is the static gap its loop counts).
  llvm::Value* newSite(llvm::Function& F);
  // At a probe: the call that checks the deadline (yields if it passed) and returns the
  // next gap, in [1, maxGap]; `overshoot` is how far past its gap the caller went (budget
  // below zero).
  llvm::Value* probe(llvm::IRBuilder<>& B, llvm::Value* site, uint64_t staticGap, uint64_t maxGap,
                     llvm::Value* overshoot);

 private:
  llvm::Module& M_;
  const Config& cfg_;
  ProbeEmitter& PE_;
};

}  // namespace quanta
