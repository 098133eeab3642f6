/* Least-squares line through (x, y) byte pairs (Phoenix linear_regression). */
#include <stdlib.h>
#include "kernel.h"

const char kernel_name[] = "linear_regression";
enum { N = 32 << 20 };
static unsigned char* pts;

void kernel_init(void) {
  uint64_t s = 11;
  pts = malloc(2 * (size_t)N);
  for (size_t i = 0; i < (size_t)N; i++) {
    unsigned char x = (unsigned char)(kernel_rand(&s) >> 56);
    pts[2 * i] = x;
    pts[2 * i + 1] = (unsigned char)(x / 2 + (kernel_rand(&s) >> 60));
  }
}

uint64_t kernel_run(void) {
  uint64_t sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (size_t i = 0; i < (size_t)N; i++) {
    uint64_t x = pts[2 * i], y = pts[2 * i + 1];
    sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y;
  }
  double n = N;
  double b = (n * sxy - (double)sx * sy) / (n * sxx - (double)sx * sx);
  double a = (sy - b * sx) / n;
  uint64_t h = kernel_fold(14695981039346656037ULL, a);
  return kernel_fold(h, b) ^ syy;
}
