// Statistics and remarks of the placement decisions (Decisions.h).
//
// Release builds of LLVM (Debian's among them) compile with NDEBUG, which turns STATISTIC
// into a counter that counts nothing. The plugin's counters stay real: this file alone
// includes Statistic.h with NDEBUG lifted, so they register with libLLVM like an asserts
// build's, and -stats turns them on.
#pragma push_macro("NDEBUG")
#undef NDEBUG
#include "llvm/ADT/Statistic.h"
#pragma pop_macro("NDEBUG")

#include "Decisions.h"
#include "LoopPlanner.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "quanta"

using namespace llvm;

STATISTIC(NumLoopStatic, "Loops that fit under the bound whole (no probe)");
STATISTIC(NumLoopVersioned, "Loops with a probe-free short-trip clone");
STATISTIC(NumLoopIVStride, "Loops probing every N iterations on their induction variable");
STATISTIC(NumLoopCounter, "Loops probing when the function's budget runs out");
STATISTIC(NumLoopEvery, "Loops probing on every back-edge");
STATISTIC(NumLoopPolled, "Loops reading the flag on every iteration (flag mode)");
STATISTIC(NumCutPath, "Probes where a straight-line path would pass the bound");
STATISTIC(NumCutBeforeCall, "Probes before a call whose callee starts with a long unprobed stretch");
STATISTIC(NumCutLoopEntry, "Probes in a preheader, before a loop the path could not afford");
STATISTIC(NumCutCycle, "Entry probes of functions on a call-graph cycle (recursion)");
STATISTIC(NumCycleTicks, "Entry ticks of functions on a call-graph cycle (recursion)");
STATISTIC(NumPathTicks, "Ticks where a path from a tick would pass an eighth of the bound");
STATISTIC(NumCallTicks, "Ticks after calls that may return from a tick (back into the cycle)");
STATISTIC(NumBoundTicks, "Ticks where a path from a clock read would pass the bound, on a call-graph cycle");
STATISTIC(NumLockSites, "Lock calls bracketed with quanta_preempt_disable/enable");
STATISTIC(NumNoPreempt, "Functions not instrumented because marked QUANTA_NO_PREEMPT");
STATISTIC(NumCounters, "Counter-mode block counters");

namespace quanta {

static const char* kindName(LoopPlan::Kind k) {
  switch (k) {
    case LoopPlan::Static: return "Static";
    case LoopPlan::Version: return "Version";
    case LoopPlan::IVStride: return "IVStride";
    case LoopPlan::Counter: return "Counter";
    case LoopPlan::Every: return "Every";
    case LoopPlan::Poll: return "Poll";
  }
  return "?";
}

void printLoopName(raw_ostream& os, Loop* L) {
  // clang discards value names outside debug builds: the header's slot number then.
  if (L->getHeader()->hasName()) os << L->getHeader()->getName();
  else L->getHeader()->printAsOperand(os, /*PrintType=*/false);
}

void describePlan(raw_ostream& os, const LoopPlan& p, uint64_t bound) {
  os << kindName(p.kind);
  if (p.kind == LoopPlan::Version) os << " (long trips: " << kindName(p.slowKind) << ")";
  os << " iter-cost=" << p.iterCost << " bound=" << bound;
  LoopPlan::Kind strided = p.kind == LoopPlan::Version ? p.slowKind : p.kind;
  if (p.kind == LoopPlan::Static) os << " whole-loop=" << p.staticCost;
  if (strided == LoopPlan::IVStride) os << " stride=" << p.stride;
  if (strided == LoopPlan::Counter) {
    os << " budget=";
    if (p.threadBudget) os << "thread";
    else os << bound;
    os << " charge=" << p.mandatoryCost;
  }
  if (p.kind == LoopPlan::Poll) os << " poll-at=" << (p.pollAtLatch ? "latch" : "top");
  if (p.latchTick) os << " latch-tick charge=" << p.iterCost;
  if (p.why && *p.why) os << ": " << p.why;
}

void notePlan(OptimizationRemarkEmitter* ORE, Loop* L, const LoopPlan& p, uint64_t bound) {
  switch (p.kind) {
    case LoopPlan::Static: ++NumLoopStatic; break;
    case LoopPlan::Version: ++NumLoopVersioned; break;
    case LoopPlan::IVStride: ++NumLoopIVStride; break;
    case LoopPlan::Counter: ++NumLoopCounter; break;
    case LoopPlan::Every: ++NumLoopEvery; break;
    case LoopPlan::Poll: ++NumLoopPolled; break;
  }
  if (!ORE) return;
  // The text is built only when remarks are on: naming an unnamed block numbers the function.
  ORE->emit([&] {
    std::string text;
    raw_string_ostream os(text);
    os << "loop ";
    printLoopName(os, L);
    os << ": ";
    describePlan(os, p, bound);
    return OptimizationRemark(DEBUG_TYPE, (Twine("Loop") + kindName(p.kind)).str(), L->getStartLoc(),
                              L->getHeader())
           << text;
  });
}

// A remark at `at`'s location; the emitter builds it only when remarks are on.
template <typename Remark = OptimizationRemark>
static void remark(OptimizationRemarkEmitter* ORE, const char* name, Instruction* at, StringRef text) {
  if (ORE) ORE->emit([&] { return Remark(DEBUG_TYPE, name, at->getDebugLoc(), at->getParent()) << text; });
}

void noteCut(OptimizationRemarkEmitter* ORE, Instruction* at, Cut why, uint64_t detail, uint64_t bound) {
  const char* name = "ProbePath";
  std::string text;
  raw_string_ostream os(text);
  switch (why) {
    case Cut::Path:
      ++NumCutPath;
      // A path at or past the bound already: it came back from a call that may return with
      // the bound spent (a call into its call-graph cycle, Placement.cpp), or one instruction
      // (an external call) costs more than the bound. It probes before its next work.
      if (detail >= bound)
        os << "probe: the path is at the bound already (" << detail
           << "): a call may return with the bound spent, or one instruction costs more than the bound";
      else
        os << "probe: the probe-free path would pass the bound here (" << detail << " before it)";
      break;
    case Cut::BeforeCall:
      ++NumCutBeforeCall;
      name = "ProbeBeforeCall";
      os << "probe before the call: the callee runs " << detail << " before its first probe";
      if (auto* CB = dyn_cast<CallBase>(at))
        if (Function* callee = CB->getCalledFunction()) os << " (" << callee->getName() << ")";
      break;
    case Cut::LoopEntry:
      ++NumCutLoopEntry;
      name = "ProbeLoopEntry";
      os << "probe in the preheader: the path (" << detail << ") cannot also afford the loop";
      break;
    case Cut::Cycle:
      ++NumCutCycle;
      name = "EntryProbeOnCycle";
      os << "entry probe: " << at->getFunction()->getName() << " is on a call-graph cycle";
      break;
    case Cut::Tick:
      ++NumCycleTicks;
      name = "EntryTickOnCycle";
      os << "entry tick, charge " << detail << ": " << at->getFunction()->getName() << " is on a call-graph cycle";
      break;
    case Cut::PathTick:
      ++NumPathTicks;
      name = "TickOnLongPath";
      os << "tick, charge " << detail << ": the path from a tick would pass an eighth of the bound here";
      break;
    case Cut::CallTick:
      ++NumCallTicks;
      name = "TickAfterCall";
      os << "tick after the call, charge " << detail << ": the callee may return from a tick";
      break;
    case Cut::OwedTick:
      ++NumCallTicks;
      name = "TickLeavingLoop";
      os << "tick leaving the loop, charge " << detail << ": a call in it may return from a tick";
      break;
    case Cut::BoundTick:
      ++NumBoundTicks;
      name = "TickAtBound";
      os << "tick at the bound, charge " << detail << ": the path from a clock read would pass the bound here, "
         << "in a function on a call-graph cycle";
      break;
  }
  remark(ORE, name, at, text);
}

void noteLockSites(OptimizationRemarkEmitter* ORE, Function& F, unsigned n) {
  if (!n) return;
  NumLockSites += n;
  if (ORE)
    ORE->emit([&] {
      return OptimizationRemark(DEBUG_TYPE, "LockSites", F.getSubprogram(), &F.getEntryBlock())
             << "bracketed " << ore::NV("LockSites", n) << " lock calls with preempt-disable/enable";
    });
}

void noteNotInstrumented(Function& F, const char* why) {
  ++NumNoPreempt;
  OptimizationRemarkEmitter ORE(&F);
  ORE.emit([&] {
    return OptimizationRemarkMissed(DEBUG_TYPE, "NotInstrumented", F.getSubprogram(), &F.getEntryBlock())
           << "not instrumented: " << why;
  });
}

void noteCounters(unsigned n) { NumCounters += n; }

// Debian's libLLVM, built without asserts, prints nothing for -stats at exit (its printer
// is compiled out); the registered counters are still there to print ourselves.
void printStatsIfAsked() {
#if !LLVM_ENABLE_STATS
#error "Statistic.h must be included with NDEBUG lifted"
#endif
  if (AreStatisticsEnabled()) PrintStatistics(errs());
}

}  // namespace quanta
