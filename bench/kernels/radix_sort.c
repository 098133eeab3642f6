/* LSD radix sort of 32-bit keys, 8 bits per pass (SPLASH-2 radix). */
#include <stdlib.h>
#include <string.h>
#include "kernel.h"

const char kernel_name[] = "radix_sort";
enum { N = 1 << 21 };
static uint32_t *orig, *a, *b;

void kernel_init(void) {
  uint64_t s = 5;
  orig = malloc(4 * N); a = malloc(4 * N); b = malloc(4 * N);
  for (int i = 0; i < N; i++) orig[i] = (uint32_t)kernel_rand(&s);
}

uint64_t kernel_run(void) {
  memcpy(a, orig, 4 * N);
  for (int shift = 0; shift < 32; shift += 8) {
    uint32_t count[257] = {0};
    for (int i = 0; i < N; i++) count[((a[i] >> shift) & 255) + 1]++;
    for (int d = 0; d < 256; d++) count[d + 1] += count[d];
    for (int i = 0; i < N; i++) b[count[(a[i] >> shift) & 255]++] = a[i];
    uint32_t* t = a; a = b; b = t;
  }
  uint64_t h = 14695981039346656037ULL;
  for (int i = 0; i < N; i += 1001) h = (h ^ a[i]) * 0x100000001B3ULL;
  for (int i = 1; i < N; i++) if (a[i - 1] > a[i]) return 0;  /* not sorted */
  return h;
}
