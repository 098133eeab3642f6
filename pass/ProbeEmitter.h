// Turns "a probe belongs here" into IR. Planning code only drops marker calls
// (__quanta_probe_site), so that loop cloning copies them like any other instruction and
// the CFG stays untouched until every decision is made; expand() then rewrites each
// marker into the probe of the chosen mode.
#pragma once

#include "Config.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Analysis/LoopInfo.h"

#include <functional>

namespace quanta {

// Adds `amount` to the benchmark counter `name`, a process-wide i64 that the first module
// to use it defines weakly (quanta_stat_probes_executed, quanta_stat_library_cycles, ...).
void addToStatCounter(llvm::IRBuilder<>& B, llvm::Module& M, llvm::StringRef name, llvm::Value* amount);

class ProbeEmitter {
 public:
  ProbeEmitter(llvm::Module& M, const Config& cfg);

  // Drops a marker before `pos` (which must not be a PHI or an EH pad).
  llvm::CallInst* mark(llvm::Instruction* pos);
  // Whether the thread's budget takes adaptive gaps, and the call that reads the clock and
  // refills it (quanta_tick_gap); `ahead`: units charged for work after the call.
  bool adaptiveTicks() const;
  void callTickGap(llvm::IRBuilder<>& B, uint64_t ahead);
  // A marker that expands into a tick (emitTick) charging `charge` units.
  void markTick(llvm::Instruction* pos, uint64_t charge) { tickCharge_[mark(pos)] = charge; }
  bool isTickMarker(const llvm::Instruction* I) const { return tickCharge_.count(const_cast<llvm::Instruction*>(I)); }
  // Rewrites every marker in F into a probe; returns how many.
  unsigned expand(llvm::Function& F);
  // Counter mode (the Compiler-Interrupts-style baseline): every block adds its cost to a
  // thread-local accumulator; when it passes the threshold the block runs a clock probe.
  unsigned instrumentBlockCounters(llvm::Function& F,
                                   const std::function<uint64_t(const llvm::BasicBlock&)>& cost);
  // Branch weights for "almost never taken".
  llvm::MDNode* unlikely() const { return unlikely_; }
  // Removes the marker declaration once no call is left.
  void finish();
  // Adds one to the counter `name` (with -quanta-count-probes only).
  void emitExecCount(llvm::IRBuilder<>& B, llvm::StringRef name = "quanta_stat_probes_executed");
  // The running thread's flag word (word 0 of its quanta_preempt_flag line), %fs-relative.
  llvm::Value* flagAddress(llvm::IRBuilder<>& B);
  // The runtime's thread-local `name`, %fs-relative: whichever thread runs the access
  // (threadWord in ProbeEmitter.cpp).
  llvm::Value* threadWord(llvm::IRBuilder<>& B, llvm::StringRef name);
  // x86's address space of pointers relative to %fs, the thread pointer.
  static constexpr unsigned kThreadPointerRelative = 257;
  // A flag probe before `at` that reads the flag at the address held in `slot` (an
  // %fs-relative one: right on any thread, so a yield leaves it as it is). New blocks join
  // LI's loops.
  void emitSlotFlagProbe(llvm::Instruction* at, llvm::Value* slot, llvm::LoopInfo* LI = nullptr);
  // Makes `marker` expand into emitSlotFlagProbe with `slot`.
  void readsFlagSlot(llvm::CallInst* marker, llvm::Value* slot) { slotOf_[marker] = slot; }
  // The runtime's thread-local `name` (initial-exec); `define` makes a weak definition.
  llvm::GlobalVariable* tlsGlobal(llvm::StringRef name, llvm::Type* ty, bool define);
  // The thread's tick budget quanta_tick_budget: its address, computed where it is used (a
  // call between may have yielded, and the task resumed on another thread).
  llvm::Value* tickBudgetAddress(llvm::IRBuilder<>& B);
  // Calls the runtime's void slow path `name` with the slow paths' convention (slowCC_) at
  // B's insertion point (through a private stub under preserve_most).
  llvm::CallInst* callSlowPath(llvm::IRBuilder<>& B, llvm::StringRef name);
  // The declaration of the runtime's slow path `name`, with slowCC_ (null if the module
  // declares `name` with another type).
  llvm::Function* slowPathDecl(llvm::StringRef name);

 private:
  void emitClockProbe(llvm::Instruction* at, bool count = true);
  void emitFlagProbe(llvm::Instruction* at);
  void emitTick(llvm::Instruction* at, uint64_t charge);

  llvm::Module& M_;
  const Config& cfg_;
  llvm::LLVMContext& C_;
  llvm::MDNode* unlikely_;
  llvm::FunctionCallee marker_;
  llvm::Instruction* ifFlagSet(llvm::IRBuilder<>& B, llvm::Value* word, llvm::Instruction* at,
                               llvm::LoopInfo* LI = nullptr);
  // The probes' slow-path convention: preserve_most on x86-64 in flag mode (every
  // general-purpose register but r11 survives the call, so a hot loop need not spill
  // around its probes' rare calls), C elsewhere (Comparisons::slowPathCC).
  llvm::CallingConv::ID slowCC_ = llvm::CallingConv::C;
  llvm::DenseMap<llvm::Instruction*, llvm::Value*> slotOf_;
  llvm::DenseMap<llvm::Instruction*, uint64_t> tickCharge_;
};

}  // namespace quanta
