// What the pass decided and why, told in two ways that tests and people can read without
// diffing rewritten IR: LLVM statistics (opt -stats), one counter per kind of decision,
// and optimization remarks (opt -pass-remarks=quanta, clang -Rpass=quanta), one per loop
// plan and per probe the straight-line walk places, naming the rule that put it there.
#pragma once

#include <cstdint>

#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"

namespace llvm {
class Loop;
class OptimizationRemarkEmitter;
class raw_ostream;
}  // namespace llvm

namespace quanta {

struct LoopPlan;

// Why the straight-line walk (Placement.cpp) put a probe where it did.
enum class Cut {
  Path,        // the longest probe-free path would pass the bound at this instruction
  BeforeCall,  // the callee's unprobed start would take the path past the bound
  LoopEntry,   // entering the loop would: the probe runs once per entry, in the preheader
  Cycle,       // the function is on a call-graph cycle: a probe at its entry
  Tick,        // ... and a tick there instead (detail: its charge)
  PathTick,    // a path from a tick would pass B/8 here: a tick of its own (detail: its charge)
  CallTick,    // after a call that may return from a tick: a tick, not a clock probe (detail: its charge)
  OwedTick,    // ... the call in a loop on the thread's budget: where the path leaves such loops
  BoundTick,   // Path or BeforeCall in a function on a call-graph cycle: a tick, not a clock probe
};

// The loop's header block: its name, or its slot number (%5) when names were discarded.
void printLoopName(llvm::raw_ostream& os, llvm::Loop* L);
// A loop's plan as one line: "IVStride stride=8 iter-cost=120 bound=1000: <why>".
void describePlan(llvm::raw_ostream& os, const LoopPlan& p, uint64_t bound);

// Counts the plan and, if `ORE`, remarks on it at the loop's start.
void notePlan(llvm::OptimizationRemarkEmitter* ORE, llvm::Loop* L, const LoopPlan& p, uint64_t bound);
void noteCut(llvm::OptimizationRemarkEmitter* ORE, llvm::Instruction* at, Cut why, uint64_t detail,
             uint64_t bound);
// Per function: lock calls bracketed with preempt-disable/enable, and functions left alone.
void noteLockSites(llvm::OptimizationRemarkEmitter* ORE, llvm::Function& F, unsigned n);
void noteNotInstrumented(llvm::Function& F, const char* why);
// Counter mode: block counters.
void noteCounters(unsigned n);
// The statistics of this process so far, when -stats is on (see Decisions.cpp).
void printStatsIfAsked();

}  // namespace quanta
