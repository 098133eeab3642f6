/* RGB histogram of a bitmap (Phoenix histogram). */
#include <stdlib.h>
#include "kernel.h"

const char kernel_name[] = "histogram";
enum { PIXELS = 16 << 20 };
static unsigned char* img;

void kernel_init(void) {
  uint64_t s = 8;
  img = malloc(3 * (size_t)PIXELS);
  for (size_t i = 0; i < 3 * (size_t)PIXELS; i++) img[i] = (unsigned char)(kernel_rand(&s) >> 56);
}

uint64_t kernel_run(void) {
  uint32_t red[256] = {0}, green[256] = {0}, blue[256] = {0};
  for (size_t i = 0; i < 3 * (size_t)PIXELS; i += 3) {
    red[img[i]]++;
    green[img[i + 1]]++;
    blue[img[i + 2]]++;
  }
  uint64_t h = 14695981039346656037ULL;
  for (int v = 0; v < 256; v++) h = ((h ^ red[v]) * 31 ^ green[v]) * 0x100000001B3ULL ^ blue[v];
  return h;
}
