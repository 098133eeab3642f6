#ifndef QUANTA_TESTS_PASS_TREE_WALK_H
#define QUANTA_TESTS_PASS_TREE_WALK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tree_node {
  const struct tree_node* left;
  const struct tree_node* right;
  uint64_t value;
};

struct tree_walk_request {
  const struct tree_node* root;
  uint64_t result;
};

/* Core cycles each node's mixing takes at the least: 8 rounds of a dependent shift, xor
 * and multiply (1 + 1 + 3 cycles of latency) that no compiler can shorten. */
#define TREE_WALK_MIN_CYCLES_PER_NODE 40

/* tree_walk.c, with the pass (clock mode) and without it (plain_ prefix). */
void tree_walk_handler(void* arg);
void plain_tree_walk_handler(void* arg);

/* tick_walk.c (clock mode, executed probes and ticks counted): a pre-order walk whose
 * calls each do at least 8 rounds of mixing (24 IR cost units) before they recurse; returns
 * the hash and counts visit()'s calls in tick_walk_calls. Built twice: with adaptive tick
 * refills (the default) and, as fixed_tick_walk, with -quanta-adaptive=0 (every refill B). */
uint64_t tick_walk(const struct tree_node* root);
extern uint64_t tick_walk_calls;
uint64_t fixed_tick_walk(const struct tree_node* root);
extern uint64_t fixed_tick_walk_calls;
extern uint64_t quanta_stat_probes_executed;
extern uint64_t quanta_stat_ticks_executed;
extern uint64_t quanta_stat_tick_clock_reads;

#ifdef __cplusplus
}
#endif

#endif
