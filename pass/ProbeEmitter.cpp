#include "ProbeEmitter.h"

#include "CostModel.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace quanta {

ProbeEmitter::ProbeEmitter(Module& M, const Config& cfg)
    : M_(M), cfg_(cfg), C_(M.getContext()) {
  unlikely_ = MDBuilder(C_).createBranchWeights(1, 1u << 20);
  marker_ = M.getOrInsertFunction("__quanta_probe_site", Type::getVoidTy(C_));
  // Only where the runtime defines its slow paths so (src/preempt/probe_abi.cc): x86-64.
  // By default in flag mode only: there a probe is a load and a branch, and its call was the
  // only thing that clobbered registers; a clock probe's rdtsc clobbers rax and rdx anyway,
  // and clock loops call quanta_clock_gap(), a C call. Measured (docs/pass-internals.md):
  // flag builds ran 1-17% fewer instructions on four of five programs, clock builds within
  // +-0.7% on four and 3.2% more on sqlite3.
  const bool preserve = cfg.compare.slowPathCC == SlowPathCC::Auto ? cfg.mode == Mode::Flag
                                                                     : cfg.compare.slowPathCC == SlowPathCC::PreserveMost;
  // And only in position-independent code (-fPIC, -fPIE, the default of Debian's clang),
  // whose calls go through the GOT (nonlazybind, below): code built without it calls an
  // external function through the PLT, and with the runtime in libquanta.so the first call
  // would run the lazy resolver, which may clobber r10.
  if (preserve && Triple(M.getTargetTriple()).getArch() == Triple::x86_64 && M.getPICLevel() != PICLevel::NotPIC)
    slowCC_ = CallingConv::PreserveMost;
}

// The declaration takes the convention, and so does every call to it already in the
// module (code that includes quanta/probe.h calls it with C; a call whose convention
// differs from its callee's is undefined, and InstCombine deletes it). NonLazyBind: in PIC
// code the call goes through the GOT, filled at load time, never through a lazily bound PLT
// entry, whose resolver (glibc's _dl_runtime_resolve) saves only the argument registers
// and may clobber r10. A static link turns it back into a direct jump.
Function* ProbeEmitter::slowPathDecl(StringRef name) {
  FunctionCallee slow = M_.getOrInsertFunction(name, Type::getVoidTy(C_));
  auto* F = dyn_cast<Function>(slow.getCallee());
  if (!F || F->getFunctionType() != slow.getFunctionType()) return nullptr;
  if (F->isDeclaration() && F->getCallingConv() != slowCC_) {
    F->setCallingConv(slowCC_);
    for (User* U : F->users())
      if (auto* CB = dyn_cast<CallBase>(U); CB && CB->getCalledOperand() == F) CB->setCallingConv(slowCC_);
  }
  if (slowCC_ != CallingConv::C) F->addFnAttr(Attribute::NonLazyBind);
  return F;
}

// Probes call a private stub that jumps on through the GOT (a musttail call). Calling the
// GOT entry from the probe itself would be as safe, but machine LICM hoists the entry's
// address out of the loop, and the register allocator then keeps it in a register across
// the whole loop (zlib's flag build: callee-saved rbp and r13 in its hot loops). A direct
// call to the stub takes no register (measured against the GOT call: docs/pass-internals.md). musttail also keeps the stub frameless: a stub that
// called and returned would need the stack realigned (see the reload below). A module that
// defines the slow path itself keeps its definition's convention, and gets no stub.
CallInst* ProbeEmitter::callSlowPath(IRBuilder<>& B, StringRef name) {
  Function* F = slowPathDecl(name);
  if (!F) return B.CreateCall(M_.getOrInsertFunction(name, Type::getVoidTy(C_)));
  Function* callee = F;
  if (slowCC_ != CallingConv::C && F->getCallingConv() == slowCC_) {
    std::string stubName = ("__" + name + "_stub").str();
    callee = M_.getFunction(stubName);
    if (!callee) {
      callee = Function::Create(F->getFunctionType(), GlobalValue::PrivateLinkage, stubName, M_);
      callee->setCallingConv(slowCC_);
      callee->addFnAttr(Attribute::NoInline);
      callee->addFnAttr(Attribute::Cold);
      callee->addFnAttr(Attribute::NoUnwind);
      IRBuilder<> SB(BasicBlock::Create(C_, "entry", callee));
      CallInst* jump = SB.CreateCall(F);
      jump->setCallingConv(slowCC_);
      jump->setTailCallKind(CallInst::TCK_MustTail);
      SB.CreateRetVoid();
    }
  }
  CallInst* call = B.CreateCall(callee);
  call->setCallingConv(callee->getCallingConv());
  return call;
}

CallInst* ProbeEmitter::mark(Instruction* pos) {
  IRBuilder<> B(pos);
  CallInst* call = B.CreateCall(marker_);
  call->setDebugLoc(pos->getDebugLoc());
  return call;
}

// The runtime owns the variables; a module that includes probe.h already declares them.
GlobalVariable* ProbeEmitter::tlsGlobal(StringRef name, Type* ty, bool define) {
  if (GlobalVariable* GV = M_.getNamedGlobal(name)) return GV;
  auto* GV = new GlobalVariable(M_, ty, /*isConstant=*/false,
                                define ? GlobalValue::WeakAnyLinkage : GlobalValue::ExternalLinkage,
                                define ? Constant::getNullValue(ty) : nullptr, name, nullptr,
                                GlobalValue::InitialExecTLSModel);
  return GV;
}

// The runtime's thread-local `name` as an %fs-relative pointer (x86's address space 257):
// its offset from the thread pointer, read from the GOT (a link-time constant; the linker
// turns the read into an immediate in an executable), and every access through it adds the
// thread pointer of the moment. Two things follow. No optimizer can reuse an address of one
// thread on another after a yield, whatever runs after this pass, because no address is
// ever formed. And the offset is read where it is used: the asm has side effects, so
// machine LICM cannot hoist it out of a loop, where the register allocator would then hold
// it in a callee-saved register across the whole loop (sqlite3's interpreter loop spilled
// four values per opcode for the flag's). Used for the flag: the deadline and the tick
// budget keep llvm.threadlocal.address, whose hoisted offset paid in clock builds
// (docs/pass-internals.md, "The flag's address").
Value* ProbeEmitter::threadWord(IRBuilder<>& B, StringRef name) {
  auto* ty = FunctionType::get(B.getInt64Ty(), false);
  InlineAsm* offset = InlineAsm::get(ty, ("movq " + name + "@gottpoff(%rip), $0").str(), "=r", /*hasSideEffects=*/true);
  CallInst* call = B.CreateCall(offset, {}, "quanta.tpoff");
  call->addFnAttr(Attribute::NoUnwind);
  return B.CreateIntToPtr(call, B.getPtrTy(kThreadPointerRelative));
}

void addToStatCounter(IRBuilder<>& B, Module& M, StringRef name, Value* amount) {
  Type* i64 = B.getInt64Ty();
  GlobalVariable* GV = M.getNamedGlobal(name);
  if (!GV) GV = new GlobalVariable(M, i64, false, GlobalValue::WeakAnyLinkage, ConstantInt::get(i64, 0), name);
  Value* v = B.CreateLoad(i64, GV);
  B.CreateStore(B.CreateAdd(v, amount), GV);
}

void ProbeEmitter::emitExecCount(IRBuilder<>& B, StringRef name) {
  if (cfg_.countExec) addToStatCounter(B, M_, name, B.getInt64(1));
}

// rdtsc; load the thread's deadline; call the slow path once it has passed.
void ProbeEmitter::emitClockProbe(Instruction* at, bool count) {
  IRBuilder<> B(at);
  if (count) emitExecCount(B);
  Type* i64 = B.getInt64Ty();
  Value* now = B.CreateIntrinsic(Intrinsic::readcyclecounter, {}, {}, nullptr, "quanta.now");
  Value* addr = B.CreateThreadLocalAddress(tlsGlobal("quanta_deadline_tsc", i64, false));
  Value* deadline = B.CreateAlignedLoad(i64, addr, Align(8), "quanta.deadline");
  Value* late = B.CreateICmpUGE(now, deadline, "quanta.late");
  Instruction* then = SplitBlockAndInsertIfThen(late, at, false, unlikely_);
  IRBuilder<> S(then);
  callSlowPath(S, "quanta_probe_slow")->setDebugLoc(at->getDebugLoc());
}

// A tick (entry of a function on a call-graph cycle, long path, after a call): takes `charge` from the thread's budget
// quanta_tick_budget and reads the clock only when the budget goes below zero, restarting
// it at the next adaptive gap less `charge` (callTickGap), or, with -quanta-adaptive=0, at
// B - charge, so that the charges of the ticks between two of its reads sum to at most the
// gap (docs/pass.md, "Across calls"). The store comes before the slow path: after a
// yield the task may run on another thread, whose budget this code must not touch through
// an address computed here.
void ProbeEmitter::emitTick(Instruction* at, uint64_t charge) {
  IRBuilder<> B(at);
  emitExecCount(B);
  emitExecCount(B, "quanta_stat_ticks_executed");
  Type* i64 = B.getInt64Ty();
  Value* addr = tickBudgetAddress(B);
  Value* left = B.CreateSub(B.CreateAlignedLoad(i64, addr, Align(8)), B.getInt64(charge), "quanta.tick");
  Value* out = B.CreateICmpSLT(left, B.getInt64(0), "quanta.tickout");
  const bool adaptive = adaptiveTicks();  // the runtime refills the budget; else B - charge here
  Value* stored = adaptive ? left : B.CreateSelect(out, B.getInt64(int64_t(cfg_.bound) - int64_t(charge)), left);
  B.CreateAlignedStore(stored, addr, Align(8));
  Instruction* then = SplitBlockAndInsertIfThen(out, at, false, unlikely_);
  IRBuilder<> S(then);
  emitExecCount(S, "quanta_stat_tick_clock_reads");
  if (adaptive) callTickGap(S, charge);
  else emitClockProbe(then, /*count=*/false);
}

// Adaptive (clock mode's default): the thread's budget is refilled with a gap aimed at the
// deadline, as a loop's adaptive budget is, by the runtime, which reads the overshoot from
// the budget and stores the refill on the thread it returns on.
bool ProbeEmitter::adaptiveTicks() const { return cfg_.mode == Mode::Clock && cfg_.adaptive; }

void ProbeEmitter::callTickGap(IRBuilder<>& B, uint64_t ahead) {
  Type* i64 = B.getInt64Ty();
  FunctionCallee gap = M_.getOrInsertFunction("quanta_tick_gap", B.getVoidTy(), i64, i64, i64, i64);
  if (auto* F = dyn_cast<Function>(gap.getCallee())) {
    F->addFnAttr(Attribute::Cold);  // laid out of the hot path's way
    F->addFnAttr(Attribute::NoUnwind);
  }
  B.CreateCall(gap, {B.getInt64(ahead), B.getInt64(cfg_.bound), B.getInt64(cfg_.bound * cfg_.maxStrideFactor),
                     B.getInt64(cfg_.probeMaxCycles)});
}

Value* ProbeEmitter::tickBudgetAddress(IRBuilder<>& B) {
  return B.CreateThreadLocalAddress(tlsGlobal("quanta_tick_budget", B.getInt64Ty(), false));
}

// Word 0 of the runtime's quanta_preempt_flag line, a cache line of its own.
Value* ProbeEmitter::flagAddress(IRBuilder<>& B) { return threadWord(B, "quanta_preempt_flag"); }

// The flag read through `word` and the branch to a new, unlikely block before `at`, which is
// returned for the slow path. The load is volatile (never merged with an earlier one) and
// atomic (monotonic: the monitor writes the flag from another thread while the task reads
// it, a data race for a plain load; on x86 the same single mov). Not atomic in a function
// built with ThreadSanitizer, which runs after this pass: it would hand the %fs-relative
// address, an offset, to __tsan_atomic32_load as if it were a pointer and fault; it leaves
// plain accesses outside address space 0 alone, and a volatile aligned 32-bit load is the
// same single mov, which sees the monitor's store or the value before it.
Instruction* ProbeEmitter::ifFlagSet(IRBuilder<>& B, Value* word, Instruction* at, LoopInfo* LI) {
  LoadInst* flag = B.CreateAlignedLoad(B.getInt32Ty(), word, Align(4), /*isVolatile=*/true, "quanta.flag");
  if (!at->getFunction()->hasFnAttribute(Attribute::SanitizeThread)) flag->setAtomic(AtomicOrdering::Monotonic);
  Value* set = B.CreateICmpNE(flag, B.getInt32(0), "quanta.set");
  return SplitBlockAndInsertIfThen(set, at, false, unlikely_, nullptr, LI);
}

void ProbeEmitter::emitSlotFlagProbe(Instruction* at, Value* slot, LoopInfo* LI) {
  IRBuilder<> B(at);
  emitExecCount(B);
  Value* word = B.CreateLoad(B.getPtrTy(kThreadPointerRelative), slot, "quanta.flagp");
  IRBuilder<> S(ifFlagSet(B, word, at, LI));
  callSlowPath(S, "quanta_flag_probe_slow")->setDebugLoc(at->getDebugLoc());
}

// One volatile load of this thread's flag. Volatile keeps GVN's load PRE and LICM from
// reusing an earlier value on the hot path of a loop, which would leave the task blind to
// the flag forever.
void ProbeEmitter::emitFlagProbe(Instruction* at) {
  IRBuilder<> B(at);
  emitExecCount(B);
  IRBuilder<> S(ifFlagSet(B, flagAddress(B), at));
  callSlowPath(S, "quanta_flag_probe_slow")->setDebugLoc(at->getDebugLoc());
}

unsigned ProbeEmitter::expand(Function& F) {
  SmallVector<Instruction*, 32> markers;
  for (BasicBlock& BB : F)
    for (Instruction& I : BB)
      if (isProbeMarker(I)) markers.push_back(&I);
  for (Instruction* m : markers) {
    if (Value* slot = slotOf_.lookup(m)) emitSlotFlagProbe(m, slot);
    // Flag code has no ticks: should the walk ask for one there (QuantaPass asks for none),
    // it becomes a flag poll, which reads no clock and costs less than a tick's countdown.
    else if (cfg_.mode == Mode::Flag) emitFlagProbe(m);
    else if (auto tick = tickCharge_.find(m); tick != tickCharge_.end()) emitTick(m, tick->second);
    else emitClockProbe(m);  // clock, and the counter baseline's threshold check
    slotOf_.erase(m);
    tickCharge_.erase(m);
    m->eraseFromParent();
  }
  return markers.size();
}

unsigned ProbeEmitter::instrumentBlockCounters(
    Function& F, const std::function<uint64_t(const BasicBlock&)>& cost) {
  Type* i64 = Type::getInt64Ty(C_);
  GlobalVariable* acc = tlsGlobal("quanta_ic_count", i64, /*define=*/true);
  SmallVector<std::pair<BasicBlock*, uint64_t>, 64> work;
  for (BasicBlock& BB : F) {
    Instruction* term = BB.getTerminator();
    if (!term || isa<UnreachableInst>(term) || term->isEHPad() || isa<CatchSwitchInst>(term)) continue;
    uint64_t c = cost(BB);
    if (c) work.push_back({&BB, c});
  }
  for (auto [BB, c] : work) {
    Instruction* term = BB->getTerminator();
    IRBuilder<> B(term);
    emitExecCount(B);
    Value* addr = B.CreateThreadLocalAddress(acc);
    Value* n = B.CreateAdd(B.CreateAlignedLoad(i64, addr, Align(8)), B.getInt64(c), "quanta.ic");
    Value* fire = B.CreateICmpUGE(n, B.getInt64(cfg_.counterThreshold), "quanta.icfire");
    B.CreateAlignedStore(B.CreateSelect(fire, B.getInt64(0), n), addr, Align(8));
    Instruction* then = SplitBlockAndInsertIfThen(fire, term, false, unlikely_);
    // The counter only gates the clock check (CI-Cycles); the clock decides to yield.
    emitClockProbe(then, /*count=*/false);
  }
  return work.size();
}

void ProbeEmitter::finish() {
  if (auto* F = dyn_cast<Function>(marker_.getCallee()))
    if (F->use_empty()) F->eraseFromParent();
}

}  // namespace quanta
