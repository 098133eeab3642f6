// Keeps a task from being preempted while it holds a lock: a preempted lock holder would
// stall every other task of its worker that wants the same lock until the holder's next
// quantum (or deadlock if they spin). No hand edits: calls to the lock API are bracketed
// with quanta_preempt_disable()/quanta_preempt_enable(), whose nesting count defers any
// probe that fires inside the critical section to the final enable.
#pragma once

#include "llvm/IR/Function.h"

namespace quanta {

enum class LockRole {
  None,
  Acquire,  // returns 0 when the lock is held: disable before, enable again on failure
  Release,  // enable after
};

LockRole lockRole(llvm::StringRef name);

// Returns the number of lock calls bracketed in F.
unsigned guardLocks(llvm::Function& F);

}  // namespace quanta
