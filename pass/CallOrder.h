// The order in which the pass visits a module's instrumented functions: callees before
// their callers, so that a call can be charged what its callee's placement left probe-free
// (CostModel's call summaries). Functions that can reach themselves again through calls
// (direct or mutual recursion, or a cycle through a function pointer) come out together,
// as one strongly connected component of the call graph, and no order among them puts every
// callee first: the pass cuts each such cycle with a probe at function entry instead.
#pragma once

#include <vector>

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Module.h"

namespace quanta {

struct CallComponent {
  std::vector<llvm::Function*> functions;
  // Some call path leads from a member back to a member (a self-call counts).
  bool cyclic = false;
  // Some member's address is taken, so an indirect call may enter the component.
  bool addressTaken = false;
};

// The components of the call graph among `targets`, callees first. A direct call is an edge
// to its callee when that is a target. An indirect call (or one through a cast) may reach
// any target whose address is taken in the module, so it is an edge to each of them; calls
// into other translation units are not followed back (they keep their configured cost).
std::vector<CallComponent> callComponentsBottomUp(llvm::Module& M,
                                                  const llvm::SmallPtrSetImpl<llvm::Function*>& targets);

}  // namespace quanta
