/* Follows a random cyclic permutation: one dependent cache miss per step (canneal-like). */
#include <stdlib.h>
#include "kernel.h"

const char kernel_name[] = "pointer_chase";
enum { NODES = 1 << 20, STEPS = 1 << 18 };
struct node { struct node* next; uint64_t value; };
static struct node* nodes;

void kernel_init(void) {
  uint64_t s = 13;
  nodes = malloc(sizeof(struct node) * NODES);
  uint32_t* order = malloc(4 * NODES);
  for (uint32_t i = 0; i < NODES; i++) order[i] = i;
  for (uint32_t i = NODES - 1; i > 0; i--) {  /* Sattolo: a single cycle */
    uint32_t j = (uint32_t)(kernel_rand(&s) % i);
    uint32_t t = order[i]; order[i] = order[j]; order[j] = t;
  }
  for (uint32_t i = 0; i < NODES; i++) {
    nodes[order[i]].next = &nodes[order[(i + 1) % NODES]];
    nodes[order[i]].value = kernel_rand(&s) & 0xffff;
  }
  free(order);
}

uint64_t kernel_run(void) {
  struct node* p = &nodes[0];
  uint64_t sum = 0;
  for (long i = 0; i < STEPS; i++) {
    sum += p->value;
    p = p->next;
  }
  return sum;
}
