#include "CostModel.h"

#include <algorithm>

#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace quanta {

bool isRuntimeName(StringRef name) {
  return name.starts_with("quanta_") || name.starts_with("__quanta");
}

bool callsFunction(const Instruction* I, StringRef name) {
  auto* CB = dyn_cast_or_null<CallBase>(I);
  Function* callee = CB ? CB->getCalledFunction() : nullptr;
  return callee && callee->getName() == name;
}

bool isProbeMarker(const Instruction& I) { return callsFunction(&I, "__quanta_probe_site"); }

// Intrinsics that vanish in codegen.
static bool isFreeIntrinsic(const IntrinsicInst& II) {
  switch (II.getIntrinsicID()) {
    case Intrinsic::dbg_declare:
    case Intrinsic::dbg_value:
    case Intrinsic::dbg_label:
    case Intrinsic::lifetime_start:
    case Intrinsic::lifetime_end:
    case Intrinsic::assume:
    case Intrinsic::experimental_noalias_scope_decl:
    case Intrinsic::invariant_start:
    case Intrinsic::invariant_end:
    case Intrinsic::pseudoprobe:
    case Intrinsic::donothing:
    case Intrinsic::sideeffect:
      return true;
    default:
      return false;
  }
}

bool CostModel::isExternalCall(const CallBase& CB) const {
  if (CB.isInlineAsm()) return true;
  Function* callee = CB.getCalledFunction();
  if (!callee) return true;  // indirect: may go anywhere
  if (callee->isIntrinsic()) return false;
  if (isRuntimeName(callee->getName())) return false;
  return !instrumented_.contains(callee);
}

std::optional<CallSummary> CostModel::callSummary(const CallBase& CB) const {
  if (!unplaced_ || isExternalCall(CB)) return std::nullopt;
  Function* callee = CB.getCalledFunction();
  if (!callee || !instrumented_.contains(callee)) return std::nullopt;  // intrinsics, runtime
  auto it = summaries_.find(callee);
  return it != summaries_.end() ? it->second : *unplaced_;
}

// Memory reads are where straight-line code spends its time; count them double. Following
// a pointer loaded from memory (p = p->next, a tree descent) is the case where IR counts
// and cycles part most: every step is a dependent, likely-missing load. Charge it like a
// cache miss, or a list walk would run tens of µs between probes.
static constexpr uint64_t kLoadCost = 2;
static constexpr uint64_t kChaseLoadCost = 20;

static uint64_t loadCost(const LoadInst& LI) {
  if (!LI.getType()->isPointerTy()) return kLoadCost;
  const Value* addr = LI.getPointerOperand()->stripInBoundsOffsets();
  if (isa<LoadInst>(addr) || isa<PHINode>(addr)) return kChaseLoadCost;
  return kLoadCost;
}

// Reading the cycle counter (rdtsc) takes about 25 cycles here, far more than the one
// unit a call into the runtime or an intrinsic is otherwise charged: a loop that polls
// quanta_task_cpu_cycles() would otherwise get probes many microseconds apart.
static constexpr uint64_t kClockReadCost = 25;

static bool readsClock(const CallBase& CB) {
  if (auto* II = dyn_cast<IntrinsicInst>(&CB)) return II->getIntrinsicID() == Intrinsic::readcyclecounter;
  Function* callee = CB.getCalledFunction();
  if (callee == nullptr) return false;
  // The polled variant is the same read with a stall check beside it.
  const StringRef name = callee->getName();
  return name == "quanta_task_cpu_cycles" || name == "quanta_task_cpu_cycles_polled";
}

uint64_t CostModel::instCost(const Instruction& I) const {
  if (isa<PHINode>(I) || isProbeMarker(I)) return 0;
  // Address arithmetic and casts fold into addressing modes or vanish in codegen.
  if (isa<GetElementPtrInst>(I) || isa<CastInst>(I) || isa<FreezeInst>(I)) return 0;
  if (auto* LI = dyn_cast<LoadInst>(&I)) return loadCost(*LI);
  if (auto* CB = dyn_cast<CallBase>(&I); CB && readsClock(*CB)) return kClockReadCost;
  if (auto* II = dyn_cast<IntrinsicInst>(&I)) {
    if (isFreeIntrinsic(*II)) return 0;
    // Block copies and fills have data-dependent length; charge them like a short call.
    if (isa<MemIntrinsic>(II)) return 10;
    return 1;
  }
  if (auto* CB = dyn_cast<CallBase>(&I)) {
    if (isExternalCall(*CB)) return extCallCost_;
    // Where one number has to stand for the call (a loop's iteration cost, a budget's
    // charge), it is the longer of the stretches the callee adds before its first probe
    // and after its last: charging it on every call keeps a loop of short calls to its
    // bound.
    if (std::optional<CallSummary> s = callSummary(*CB)) return 1 + std::max(s->entry, s->exit);
    return 1;
  }
  return 1;
}

bool CostModel::mayReturnFromTick(const CallBase& CB, bool indirectReenters) const {
  if (CB.isInlineAsm()) return false;
  if (!CB.getCalledFunction()) return indirectReenters;
  std::optional<CallSummary> s = callSummary(CB);
  return s && s->tickedExit;
}

uint64_t CostModel::blockCost(const BasicBlock& BB) const {
  uint64_t c = 0;
  for (const Instruction& I : BB) c += instCost(I);
  return c;
}

}  // namespace quanta
