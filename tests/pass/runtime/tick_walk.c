/* A recursive tree walk compiled with entry ticks and probe counting (clock mode,
 * -quanta-count-probes): every call of visit() does its node's mixing before it recurses
 * and stays far under the bound, so only the entry tick stands between one call's work and
 * the next, and only the ticks after the recursive calls between the returns. The test
 * counts the ticks and the clock reads they make. */
#include "tree_walk.h"

/* The second build names itself (pass/Tests.cmake). */
#ifndef TICK_WALK
#define TICK_WALK tick_walk
#define TICK_WALK_CALLS tick_walk_calls
#endif

uint64_t TICK_WALK_CALLS;

/* Pre-order, results through `acc`: the node's work comes before the recursive calls.
 * disable_tail_calls keeps the optimizer from turning the last call into a loop, so that
 * every call the counter sees is a real one, with its tick. */
__attribute__((disable_tail_calls)) static void visit(const struct tree_node* n, uint64_t* acc) {
  TICK_WALK_CALLS++;
  if (!n) return;
  uint64_t h = *acc ^ n->value;
  for (int i = 0; i < 8; i++) {
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
  }
  *acc = h;
  visit(n->left, acc);
  visit(n->right, acc);
}

uint64_t TICK_WALK(const struct tree_node* root) {
  uint64_t acc = 0x9e3779b97f4a7c15ULL;
  visit(root, &acc);
  return acc;
}
