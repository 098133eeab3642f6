// Counting builds (QUANTA_COUNT_PROBES=1) only: the cycles spent inside calls to library
// functions, so a benchmark can tell a long stretch without a yield that the
// probes left from one spent in libc or the kernel.
#pragma once

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"

namespace quanta {

// Brackets every call from `targets` to a library function (one TargetLibraryInfo knows,
// or a memcpy/memmove/memset intrinsic of a length not known at compile time) with two
// cycle-counter reads, adding the difference to quanta_stat_library_cycles (one word for
// the process, like quanta_stat_probes_executed).
void timeLibraryCalls(llvm::Module& M, llvm::FunctionAnalysisManager& FAM,
                      const llvm::SmallPtrSetImpl<llvm::Function*>& targets);

}  // namespace quanta
