#include "CallOrder.h"

#include <memory>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/GraphTraits.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace quanta {
namespace {

struct CallNode {
  Function* fn = nullptr;  // null: the root, which reaches every function
  std::vector<CallNode*> callees;
};

struct CallGraphOfTargets {
  CallNode root;
  std::vector<std::unique_ptr<CallNode>> nodes;
};

}  // namespace
}  // namespace quanta

namespace llvm {
template <>
struct GraphTraits<quanta::CallGraphOfTargets*> {
  using NodeRef = quanta::CallNode*;
  using ChildIteratorType = std::vector<quanta::CallNode*>::iterator;
  static NodeRef getEntryNode(quanta::CallGraphOfTargets* G) { return &G->root; }
  static ChildIteratorType child_begin(NodeRef N) { return N->callees.begin(); }
  static ChildIteratorType child_end(NodeRef N) { return N->callees.end(); }
};
}  // namespace llvm

namespace quanta {

std::vector<CallComponent> callComponentsBottomUp(Module& M, const SmallPtrSetImpl<Function*>& targets) {
  CallGraphOfTargets G;
  DenseMap<Function*, CallNode*> nodeOf;
  std::vector<CallNode*> addressTaken;
  for (Function& F : M) {
    if (!targets.contains(&F)) continue;
    G.nodes.push_back(std::make_unique<CallNode>());
    CallNode* n = G.nodes.back().get();
    n->fn = &F;
    nodeOf[&F] = n;
    G.root.callees.push_back(n);
    if (F.hasAddressTaken()) addressTaken.push_back(n);
  }
  for (auto& n : G.nodes) {
    SmallPtrSet<CallNode*, 8> seen;
    bool indirect = false;
    for (Instruction& I : instructions(*n->fn)) {
      auto* CB = dyn_cast<CallBase>(&I);
      if (!CB || CB->isInlineAsm()) continue;
      // A call through a cast of a function is a direct call for this purpose.
      auto* callee = dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts());
      if (!callee) {
        indirect = true;
        continue;
      }
      auto it = nodeOf.find(callee);
      if (it != nodeOf.end() && seen.insert(it->second).second) n->callees.push_back(it->second);
    }
    if (indirect)
      for (CallNode* t : addressTaken)
        if (seen.insert(t).second) n->callees.push_back(t);
  }

  std::vector<CallComponent> out;
  for (auto it = scc_begin(&G); !it.isAtEnd(); ++it) {
    CallComponent c;
    for (CallNode* n : *it)
      if (n->fn) {
        c.functions.push_back(n->fn);
        c.addressTaken |= n->fn->hasAddressTaken();
      }
    if (c.functions.empty()) continue;  // the root
    c.cyclic = it.hasCycle();
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace quanta
