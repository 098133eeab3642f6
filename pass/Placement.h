// Straight-line probe placement (everything that is not a loop back-edge).
#pragma once

#include "CostModel.h"
#include "LoopPlanner.h"
#include "ProbeEmitter.h"

namespace llvm {
class OptimizationRemarkEmitter;
}

namespace quanta {

// Clock mode: walks the CFG in reverse post-order with back-edges removed, tracking the
// longest probe-free path into each block, and drops a probe wherever a path would pass
// `bound`. A path about to enter a loop whose iteration would push it past the bound is cut
// in the preheader, so the probe runs once per loop entry rather than once per iteration.
// A call to an instrumented function of the module runs on the path by its summary: cut
// before it when the callee's probe-free start would pass the bound. A function on a
// call-graph cycle puts a clock probe or a tick first (`entry`); a path from a tick that
// would pass B/8 outside loops gets a tick of its own there, so that the entry tick charges
// the short paths, not the rare long one. After a call that may return from a tick (a call
// back into the cycle; an indirect call, where `indirectReenters` says one may reach the
// cycle; a callee with a ticked exit) nothing is on a path from a clock read: with
// `callTicks` a post-call tick goes right after it (where its loops allow, see tickAllowed),
// else a clock probe before the next work. Returns F's own summary, as its callers will
// charge it (entry ticks are no probes to them), and the entry tick's charge (0: none).
enum class EntryOnCycle { None, Probe, Tick };
struct Placed {
  CallSummary summary;
  uint64_t entryTickCharge = 0;
};
Placed placeBoundedPaths(llvm::Function& F, llvm::LoopInfo& LI, LoopPlanner& loops, const CostModel& CM,
                         ProbeEmitter& PE, uint64_t bound, EntryOnCycle entry, bool indirectReenters,
                         bool callTicks, llvm::OptimizationRemarkEmitter* ORE);

}  // namespace quanta
