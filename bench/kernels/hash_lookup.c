/* Lookups in an open-addressing hash table, hits and misses (key-value store core). */
#include <stdlib.h>
#include "kernel.h"

const char kernel_name[] = "hash_lookup";
enum { KEYS = 1 << 19, SLOTS = 1 << 20, LOOKUPS = 1 << 20 };
static uint64_t *slot_key, *slot_val, *queries;

static uint32_t slot_of(uint64_t k) { return (uint32_t)((k * 0x9E3779B97F4A7C15ULL) >> 44); }

void kernel_init(void) {
  uint64_t s = 12;
  slot_key = calloc(SLOTS, 8); slot_val = calloc(SLOTS, 8); queries = malloc(8 * LOOKUPS);
  uint64_t* keys = malloc(8 * KEYS);
  for (int i = 0; i < KEYS; i++) {
    uint64_t k = kernel_rand(&s) | 1;
    keys[i] = k;
    uint32_t at = slot_of(k);
    while (slot_key[at] && slot_key[at] != k) at = (at + 1) & (SLOTS - 1);
    slot_key[at] = k;
    slot_val[at] = (uint64_t)i;
  }
  for (int i = 0; i < LOOKUPS; i++)
    queries[i] = (i & 3) ? keys[kernel_rand(&s) % KEYS] : (kernel_rand(&s) | 1);
  free(keys);
}

uint64_t kernel_run(void) {
  uint64_t h = 0, hits = 0;
  for (int i = 0; i < LOOKUPS; i++) {
    uint64_t k = queries[i];
    uint32_t at = slot_of(k);
    while (slot_key[at] && slot_key[at] != k) at = (at + 1) & (SLOTS - 1);
    if (slot_key[at] == k) { hits++; h += slot_val[at]; }
  }
  return h * 31 + hits;
}
