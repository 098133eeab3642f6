/* A recursive tree walk with a fixed amount of work per node and no loop that runs long:
 * every call of visit() stays far under the bound, so before the pass charged calls by
 * their callees, nothing in it reached a probe and a walk of a million nodes ran as one
 * quantum. Built twice, with the pass (TREE_HANDLER(x) = x) and without it (plain_x). */
#include "tree_walk.h"

#ifndef TREE_HANDLER
#define TREE_HANDLER(name) name
#endif

static uint64_t mix_node(uint64_t h, uint64_t v) {
  h ^= v;
  for (int i = 0; i < 8; i++) {
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
  }
  return h;
}

/* Pre-order: the node, then its left and right subtrees. */
static uint64_t visit(const struct tree_node* n, uint64_t h) {
  if (!n) return h;
  h = mix_node(h, n->value);
  h = visit(n->left, h);
  return visit(n->right, h);
}

void TREE_HANDLER(tree_walk_handler)(void* arg) {
  struct tree_walk_request* r = (struct tree_walk_request*)arg;
  r->result = visit(r->root, 0x9e3779b97f4a7c15ULL);
}
