// How much a piece of IR counts toward the probe bound, and which calls leave the
// instrumented world. Costs are IR instructions: a proxy for time that the pass uses only
// to space probes; the probes themselves measure real time (clock) or read the flag.
#pragma once

#include <cstdint>
#include <optional>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

namespace quanta {

// What a call to an instrumented function of this module adds to its caller's probe-free
// paths (clock mode), from the callee's own placement, in cost units. The call instruction
// itself is not included.
struct CallSummary {
  // Longest probe-free path from the callee's entry to any point of it: what the caller's
  // path runs on into the callee before a probe (or the return) comes.
  uint64_t entry = 0;
  // Longest probe-free path from any point of the callee to a return (or resume): what
  // the caller's path restarts from after the call, when the callee probed.
  uint64_t exit = 0;
  // Longest path from entry to a return that runs no probe at all; absent when every
  // path probes. After the call the caller's path is max(exit, before + through).
  std::optional<uint64_t> through;
  // Set when a return may be reached from a tick with no clock probe between (a post-call
  // tick, or the callee's own call that returns so): the longest such stretch, which that
  // tick charged. What the caller runs after the call lies on no path from a clock read,
  // so the caller ticks (or probes) right after the call.
  std::optional<uint64_t> tickedExit;
  // The callee starts with a tick (it is on a call-graph cycle): its ticks charge its
  // start, which a loop charging the thread's budget then leaves out (LoopPlanner).
  bool entryTick = false;
};

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

  // Clock mode charges calls to instrumented functions by their summaries: set each one
  // once its function is placed. Until then (a callee in the caller's own call-graph cycle),
  // `unplaced` stands in: the pass puts a probe or tick at the entry of every function on a
  // cycle, and what such a callee leaves probe-free before returning is not known yet.
  void useSummaries(const CallSummary& unplaced) { unplaced_ = unplaced; }
  void setSummary(const llvm::Function* F, const CallSummary& s) { summaries_[F] = s; }
  const CallSummary* summaryOf(const llvm::Function* F) const {
    auto it = summaries_.find(F);
    return it == summaries_.end() ? nullptr : &it->second;
  }
  // The summary for a direct call to an instrumented function, if summaries are in use.
  std::optional<CallSummary> callSummary(const llvm::CallBase& CB) const;
  // Whether `CB` may return from a tick with no clock read since (a callee with a ticked
  // exit, one of the caller's cycle not placed yet, or an indirect call where
  // `indirectReenters`): a tick or probe must follow it (Placement.cpp).
  bool mayReturnFromTick(const llvm::CallBase& CB, bool indirectReenters) const;

 private:
  uint64_t extCallCost_;
  const llvm::SmallPtrSetImpl<llvm::Function*>& instrumented_;
  std::optional<CallSummary> unplaced_;
  llvm::DenseMap<const llvm::Function*, CallSummary> summaries_;
};

// Names owned by the runtime: never instrumented, never counted as external work.
bool isRuntimeName(llvm::StringRef name);
// Whether `I` calls the function named `name` directly (null `I`: no).
bool callsFunction(const llvm::Instruction* I, llvm::StringRef name);
// The marker call the planners drop where a probe belongs; expanded at the end.
bool isProbeMarker(const llvm::Instruction& I);

}  // namespace quanta
