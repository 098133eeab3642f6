#include "QuantaPass.h"

#include "AdaptiveProbe.h"
#include "CallOrder.h"
#include "CostModel.h"
#include "Decisions.h"
#include "FlagTwins.h"
#include "LibraryCallTiming.h"
#include "LockGuard.h"
#include "LoopPlanner.h"
#include "Placement.h"
#include "ProbeEmitter.h"
#include "ProbeRecord.h"
#include "Stats.h"
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

using namespace llvm;

namespace quanta {

// Functions tagged QUANTA_NO_PREEMPT: clang records annotate("...") in
// llvm.global.annotations as { ptr function, ptr string, ptr file, i32 line, ptr args }.
static SmallPtrSet<Function*, 8> noPreemptFunctions(Module& M) {
  SmallPtrSet<Function*, 8> out;
  GlobalVariable* GV = M.getNamedGlobal("llvm.global.annotations");
  if (!GV || !GV->hasInitializer()) return out;
  auto* arr = dyn_cast<ConstantArray>(GV->getInitializer());
  if (!arr) return out;
  for (Value* op : arr->operands()) {
    auto* entry = dyn_cast<ConstantStruct>(op);
    if (!entry || entry->getNumOperands() < 2) continue;
    auto* F = dyn_cast<Function>(entry->getOperand(0)->stripPointerCasts());
    auto* strGV = dyn_cast<GlobalVariable>(entry->getOperand(1)->stripPointerCasts());
    if (!F || !strGV || !strGV->hasInitializer()) continue;
    auto* str = dyn_cast<ConstantDataSequential>(strGV->getInitializer());
    if (str && str->isCString() && str->getAsCString() == "quanta_no_preempt") out.insert(F);
  }
  return out;
}

static bool instrumentable(Function& F, const SmallPtrSetImpl<Function*>& noPreempt) {
  return !F.isDeclaration() && !F.hasAvailableExternallyLinkage() && !isRuntimeName(F.getName()) &&
         !F.hasFnAttribute(Attribute::Naked) && !F.hasFnAttribute("quanta_no_preempt") &&
         !noPreempt.contains(&F);
}

// Instrumented code goes to the quanta_text section, which the runtime's preemption
// signal handler treats as safe to switch out of (docs/runtime.md): code compiled by the
// pass takes no lock unbracketed and keeps no state a switch could break. A function
// with a section of its own keeps it; so does a comdat one (an inline or template
// function whose copies the linker merges: another object may have compiled it without
// the pass), and it stays preemptible at its probes.
static void markSignalSafe(Function& F) {
  if (!F.hasSection() && !F.hasComdat()) F.setSection("quanta_text");
}

namespace {
struct ModuleStats {
  unsigned functions = 0, probes = 0, lockSites = 0;
  LoopStats loops;
};
}  // namespace

static std::string statsLine(const Module& M, Mode mode, const ModuleStats& st) {
  std::string line;
  raw_string_ostream os(line);
  os << "quanta-stats: module=" << M.getName() << " mode=" << modeName(mode)
     << " functions=" << st.functions << " probes=" << st.probes << " lock_sites=" << st.lockSites
     << " loops_static=" << st.loops.statics << " loops_versioned=" << st.loops.versioned
     << " loops_iv=" << st.loops.ivStrided << " loops_counter=" << st.loops.counted
     << " loops_every=" << st.loops.every << " loops_polled=" << st.loops.polled << "\n";
  return line;
}

// print<quanta-plan>: the function's loops as planned, outermost first, indented by depth.
static void printPlans(raw_ostream& os, Function& F, LoopInfo& LI, const LoopPlanner& loops, EntryOnCycle entry,
                       uint64_t tickCharge, const CallSummary* summary) {
  os << "function " << F.getName() << ":";
  if (entry == EntryOnCycle::Probe) os << " entry probe (on a call-graph cycle);";
  if (entry == EntryOnCycle::Tick) os << " entry tick, charge " << tickCharge << " (on a call-graph cycle);";
  // The callers' view of F (CostModel.h): unprobed from its entry, before its returns,
  // from entry to a return on a path with no probe at all, and from a tick to a return.
  if (summary) {
    os << " summary entry=" << summary->entry << " exit=" << summary->exit;
    if (summary->through) os << " through=" << *summary->through;
    if (summary->tickedExit) os << " ticked-exit=" << *summary->tickedExit;
  }
  os << "\n";
  if (loops.loops().empty()) os << "  no loops\n";
  for (Loop* top : LI)
    for (Loop* L : depth_first(top)) {
      os.indent(2 * L->getLoopDepth()) << "loop ";
      printLoopName(os, L);
      os << ": ";
      describePlan(os, *loops.planFor(L), loops.bound());
      os << "\n";
    }
}

PreservedAnalyses QuantaPass::run(Module& M, ModuleAnalysisManager& MAM) {
  auto& FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  return instrument(M, FAM, nullptr) ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

// Instruments `targets` in cfg.mode (with lock bracketing as configured); callees first.
static ModuleStats instrumentFunctions(Module& M, FunctionAnalysisManager& FAM, const Config& cfg,
                                       const SmallPtrSetImpl<Function*>& targets, bool lockOnly,
                                       raw_ostream* plans) {
  CostModel CM(cfg.extCallCost, targets);
  // Clock and flag mode place probes by the same bounded-path walk, each with its own
  // bound (flag mode: the flag stride). A call to a function placed before it runs on the
  // caller's paths by that function's summary; one not placed yet is on the caller's own
  // call-graph cycle, so it probes (clock: ticks) at entry and may return from a tick (clock
  // with ticks) or with the bound spent. The summaries are this call's alone: a flag build's
  // clock twins are placed by a call of their own (with a CostModel of their own), so flag
  // summaries and clock summaries never meet.
  const bool clock = cfg.mode == Mode::Clock;
  const uint64_t bound = clock ? cfg.bound : cfg.flagStride;
  // Counter mode charges blocks, calls at 1: no walk, no summaries.
  bool summaries = cfg.mode != Mode::Counter && !lockOnly && cfg.compare.callSummaries;
  // Ticks are clock mode's: in flag mode a poll is cheaper than a tick's countdown.
  bool callTicks = clock && summaries && cfg.compare.cycleTicks;
  std::optional<uint64_t> unplacedTickedExit;
  if (callTicks) unplacedTickedExit = bound;
  if (summaries) CM.useSummaries(CallSummary{0, bound, std::nullopt, unplacedTickedExit});
  ProbeEmitter PE(M, cfg);
  AdaptiveProbe AP(M, cfg, PE);
  ModuleStats st;

  // Callees first, so that each call finds its callee's summary.
  struct Visit {
    Function* F;
    bool onCycle;           // probes or ticks at entry
    bool indirectReenters;  // an indirect call may lead back into its cycle
  };
  std::vector<Visit> order;
  for (const CallComponent& c : callComponentsBottomUp(M, targets))
    for (Function* F : c.functions)
      order.push_back({F, summaries && c.cyclic, summaries && c.cyclic && c.addressTaken});

  for (const Visit& v : order) {
    Function& F = *v.F;
    ++st.functions;
    // Remarks cost nothing unless asked for (-pass-remarks=quanta, -Rpass=quanta).
    // The printer runs on a copy: its remarks would repeat the real run's.
    OptimizationRemarkEmitter realORE(&F);
    OptimizationRemarkEmitter* ORE = plans ? nullptr : &realORE;
    if (cfg.lockGuard || lockOnly) {
      unsigned sites = guardLocks(F);
      noteLockSites(ORE, F, sites);
      st.lockSites += sites;
    }
    if (lockOnly) {
      FAM.invalidate(F, PreservedAnalyses::none());
      continue;
    }

    if (cfg.mode == Mode::Counter) {
      unsigned counters = PE.instrumentBlockCounters(F, [&](const BasicBlock& BB) { return CM.blockCost(BB); });
      noteCounters(counters);
      st.probes += counters;
      PE.expand(F);
      FAM.invalidate(F, PreservedAnalyses::none());
      continue;
    }

    FAM.invalidate(F, PreservedAnalyses::none());
    auto& DT = FAM.getResult<DominatorTreeAnalysis>(F);
    auto& LI = FAM.getResult<LoopAnalysis>(F);
    auto& SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
    auto& AC = FAM.getResult<AssumptionAnalysis>(F);
    // Late in the pipeline loops may have lost their preheaders; the loop rewrites need
    // preheaders, single latches, dedicated exits and LCSSA.
    for (Loop* L : LI) {
      simplifyLoop(L, &DT, &LI, &SE, &AC, nullptr, false);
      formLCSSARecursively(*L, DT, &LI, &SE);
    }

    LoopPlanner loops(F, LI, SE, DT, CM, cfg, PE, bound, /*allowVersioning=*/clock,
                      clock && cfg.adaptive ? &AP : nullptr);
    if (callTicks) loops.expectCallTicks(v.indirectReenters);
    if (callTicks && v.onCycle) loops.tickEveryLoops();
    loops.plan();
    // A function on a call-graph cycle: in flag mode a flag poll at entry, never a tick
    // (a poll is a load and a compare, cheaper than a tick's thread-local countdown).
    EntryOnCycle entry = !v.onCycle ? EntryOnCycle::None
                         : clock && cfg.compare.cycleTicks ? EntryOnCycle::Tick : EntryOnCycle::Probe;
    Placed placed = placeBoundedPaths(F, LI, loops, CM, PE, bound, entry, v.indirectReenters, callTicks, ORE);
    placed.summary.entryTick = entry == EntryOnCycle::Tick;
    CM.setSummary(&F, placed.summary);
    if (plans) printPlans(*plans, F, LI, loops, entry, placed.entryTickCharge, CM.summaryOf(&F));
    loops.apply(ORE);
    const LoopStats& ls = loops.stats();
    st.loops.statics += ls.statics;
    st.loops.versioned += ls.versioned;
    st.loops.ivStrided += ls.ivStrided;
    st.loops.counted += ls.counted;
    st.loops.every += ls.every;
    st.loops.polled += ls.polled;

    st.probes += PE.expand(F) + ls.adaptiveProbes + ls.polled;
    markSignalSafe(F);
    // The loop budget, the thread-budget loops' pending charge, the loops' distances to their
    // next probes and the polled loops' flag address live in allocas until now; promote them
    // to SSA registers, or every iteration (and every entry) would pay a store-to-load chain
    // through the stack. Found by pointer, not by name: clang discards value names outside
    // debug builds.
    SmallVector<AllocaInst*, 4> slots(loops.leftSlots().begin(), loops.leftSlots().end());
    if (AllocaInst* budget = loops.budgetSlot()) slots.push_back(budget);
    if (AllocaInst* pending = loops.pendingSlot()) slots.push_back(pending);
    if (AllocaInst* flag = loops.flagAddressSlot()) slots.push_back(flag);
    if (!slots.empty()) {
      DominatorTree freshDT(F);
      PromoteMemToReg(slots, freshDT);
      loops.dropEmptyFlushes();
    }
    FAM.invalidate(F, PreservedAnalyses::none());
  }
  PE.finish();
  return st;
}

bool QuantaPass::instrument(Module& M, FunctionAnalysisManager& FAM, raw_ostream* plans) {
  std::string badSetting;
  Config cfg = loadConfig(badSetting);
  if (!badSetting.empty()) {
    M.getContext().emitError(badSetting);
    return false;
  }
  if (forced_) cfg.mode = *forced_;
  if (cfg.mode == Mode::None && !lockOnly_) return false;
  // Once per module: the optimizer-last hook also fires inside LTO backends and in an
  // explicit default<O3> after -passes=quanta-..., and probes must not be stacked twice.
  if (M.getModuleFlag("quanta.instrumented")) return false;
  // Flag probes read the thread's flag %fs-relative, at an offset an x86-64 asm reads
  // (ProbeEmitter::threadWord), as the runtime itself only exists for x86-64. A module
  // without a triple (an .ll file) is taken for one.
  Triple target(M.getTargetTriple());
  if (cfg.mode == Mode::Flag && !lockOnly_ && !M.getTargetTriple().empty() && target.getArch() != Triple::x86_64) {
    M.getContext().emitError("quanta pass: flag mode's probes are x86-64 code (the runtime's only target); this "
                             "module targets '" + M.getTargetTriple() + "'");
    return false;
  }

  SmallPtrSet<Function*, 8> noPreempt = noPreemptFunctions(M);
  SmallPtrSet<Function*, 32> targets;
  for (Function& F : M) {
    if (instrumentable(F, noPreempt)) targets.insert(&F);
    else if (!F.isDeclaration() && (F.hasFnAttribute("quanta_no_preempt") || noPreempt.contains(&F)))
      noteNotInstrumented(F, "marked QUANTA_NO_PREEMPT");
  }
  if (targets.empty()) {
    if (!plans) printStatsIfAsked();
    return false;
  }

  // Flag mode: the clock twins are cloned from the functions as they are now, before
  // anything is instrumented, so that they get their own lock bracketing and probes.
  const bool withTwins = cfg.mode == Mode::Flag && cfg.flagTwins && !lockOnly_;
  FlagTwins twins;
  if (withTwins) twins = makeClockTwins(M, targets);

  ModuleStats st = instrumentFunctions(M, FAM, cfg, targets, lockOnly_, plans);
  // Counting builds also time their calls into the library (LibraryCallTiming.h).
  if (cfg.countExec && !lockOnly_) timeLibraryCalls(M, FAM, targets);
  ModuleStats twinSt;
  if (withTwins && !twins.twins.empty()) {
    Config clockCfg = cfg;
    clockCfg.mode = Mode::Clock;
    // The twins call the slow paths as the flag code does: one convention per module
    // (ProbeEmitter's stubs and declarations are shared).
    if (clockCfg.compare.slowPathCC == SlowPathCC::Auto) clockCfg.compare.slowPathCC = SlowPathCC::PreserveMost;
    twinSt = instrumentFunctions(M, FAM, clockCfg, twins.twins, false, plans);
    emitTwinTable(M, twins);
  }
  // Every module with instrumented functions gets a record, with no probes too (all its
  // functions were short), so a binary tells which of its objects went through the pass.
  // A lock-bracketing-only run records mode 0: it has lock sites and no probe kind. The
  // record counts the functions as compiled; their clock twins only by number (`twins`),
  // so that a flag object's probe count is its flag probes' alone.
  ProbeRecordCounts rec;
  rec.mode = lockOnly_ ? 0 : uint16_t(cfg.mode);
  rec.probes = st.probes;
  rec.lockSites = st.lockSites;
  rec.functions = st.functions;
  rec.twins = twinSt.functions;
  emitProbeRecord(M, rec);
  M.addModuleFlag(Module::Max, "quanta.instrumented", lockOnly_ ? 0u : unsigned(cfg.mode));

  if (plans) return true;
  if (cfg.stats) {
    std::string line = statsLine(M, cfg.mode, st);
    if (withTwins) {
      line.pop_back();  // the newline
      line += " twins=" + std::to_string(twinSt.functions) + " twin_probes=" + std::to_string(twinSt.probes) + "\n";
    }
    emitStatsLine(M.getContext(), cfg, line);
  }
  printStatsIfAsked();
  return true;
}

// Runs the whole pass on a copy of the module, with its own analyses, and prints the
// plans it made on the way: the input is left as it was, and the plans are the ones a
// real run makes (lock bracketing, loop canonical form and callee summaries included).
PreservedAnalyses PlanPrinterPass::run(Module& M, ModuleAnalysisManager&) {
  std::unique_ptr<Module> copy = CloneModule(M);
  FunctionAnalysisManager FAM;
  PassBuilder().registerFunctionAnalyses(FAM);
  QuantaPass().instrument(*copy, FAM, &os_);
  return PreservedAnalyses::all();
}

}  // namespace quanta
