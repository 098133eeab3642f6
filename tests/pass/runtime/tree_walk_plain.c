/* The tree walk without the pass, under a plain_ name: the reference result. */
#define TREE_HANDLER(name) plain_##name
#include "tree_walk.c"
