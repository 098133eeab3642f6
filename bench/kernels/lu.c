/* LU decomposition without pivoting of a diagonally dominant matrix (SPLASH-2 lu). */
#include <stdlib.h>
#include <string.h>
#include "kernel.h"

const char kernel_name[] = "lu";
enum { N = 600 };
static double *orig, *m;

void kernel_init(void) {
  uint64_t s = 2;
  orig = malloc(sizeof(double) * N * N);
  m = malloc(sizeof(double) * N * N);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) orig[i * N + j] = kernel_rand_unit(&s) + (i == j ? N : 0);
}

uint64_t kernel_run(void) {
  memcpy(m, orig, sizeof(double) * N * N);
  for (int k = 0; k < N; k++) {
    double pivot = m[k * N + k];
    for (int i = k + 1; i < N; i++) {
      double f = m[i * N + k] / pivot;
      m[i * N + k] = f;
      for (int j = k + 1; j < N; j++) m[i * N + j] -= f * m[k * N + j];
    }
  }
  uint64_t h = 14695981039346656037ULL;
  for (int i = 0; i < N; i++) h = kernel_fold(h, m[i * N + i]);
  return h;
}
