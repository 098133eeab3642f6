// Clock twins for flag mode (Concord's dispatcher copy; runtime side in
// include/quanta/flag_twins.h). Before flag probes go in, every function the pass is about
// to instrument is cloned into an internal twin, `<name>.quanta_clock`; the twins' direct
// calls to instrumented functions are pointed at those functions' twins, and the twins are
// then instrumented with clock probes. A table of (function, twin) pairs and a constructor
// that registers it with the runtime let a thread that nobody writes a flag for (the
// dispatcher running a request itself) call the twin of a handler instead.
#pragma once

#include <utility>
#include <vector>

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Module.h"

namespace quanta {

struct FlagTwins {
  std::vector<std::pair<llvm::Function*, llvm::Function*>> pairs;  // (flag function, clock twin)
  llvm::SmallPtrSet<llvm::Function*, 32> twins;
};

// Whether F can have a twin: a function whose blocks' addresses are taken (computed goto)
// cannot be cloned without its blockaddress constants still naming the original.
bool twinnable(const llvm::Function& F);

// Clones each function of `targets` that is twinnable, in module order (a reproducible
// object), before any of them is instrumented; then redirects every direct call or invoke
// in a twin whose callee has a twin to that twin. Calls through pointers are left alone:
// they reach the flag-probed functions.
FlagTwins makeClockTwins(llvm::Module& M, const llvm::SmallPtrSetImpl<llvm::Function*>& targets);

// Adds the private table of pairs (struct quanta_flag_twin[]) and a constructor and a
// destructor that register it with the runtime and take it back (through a weak
// reference: without the runtime linked in they do nothing).
void emitTwinTable(llvm::Module& M, const FlagTwins& twins);

}  // namespace quanta
