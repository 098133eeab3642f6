/* Counts distinct words with an open-addressing hash table (Phoenix word_count). */
#include <stdlib.h>
#include <string.h>
#include "kernel.h"

const char kernel_name[] = "word_count";
enum { TEXT = 4 << 20, SLOTS = 1 << 18 };
static char* text;
static struct slot { uint64_t hash; uint32_t count; } * table;

void kernel_init(void) {
  uint64_t s = 10;
  text = malloc(TEXT);
  for (int i = 0; i < TEXT; i++) {
    uint64_t r = kernel_rand(&s);
    text[i] = (r % 5 == 0) ? ' ' : (char)('a' + (r >> 20) % 3);
  }
  table = malloc(sizeof(struct slot) * SLOTS);
}

uint64_t kernel_run(void) {
  memset(table, 0, sizeof(struct slot) * SLOTS);
  uint64_t h = 0, distinct = 0;
  int i = 0;
  while (i < TEXT) {
    while (i < TEXT && text[i] == ' ') i++;
    if (i >= TEXT) break;
    h = 1469598103934665603ULL;
    while (i < TEXT && text[i] != ' ') h = (h ^ (unsigned char)text[i++]) * 0x100000001B3ULL;
    h |= 1;
    uint32_t at = (uint32_t)(h >> 40) & (SLOTS - 1);
    while (table[at].hash && table[at].hash != h) at = (at + 1) & (SLOTS - 1);
    if (!table[at].hash) {
      if (distinct >= SLOTS / 2) continue;  /* table full enough: ignore new words */
      table[at].hash = h;
      distinct++;
    }
    table[at].count++;
  }
  uint64_t sum = distinct;
  for (int k = 0; k < SLOTS; k++) sum = sum * 31 + table[k].count;
  return sum;
}
