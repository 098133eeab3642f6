/* Cholesky factorisation A = L L^T of a symmetric positive definite matrix (SPLASH-2). */
#include <math.h>
#include <stdlib.h>
#include "kernel.h"

const char kernel_name[] = "cholesky";
enum { N = 520 };
static double *a, *l;

void kernel_init(void) {
  uint64_t s = 3;
  a = malloc(sizeof(double) * N * N);
  l = malloc(sizeof(double) * N * N);
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++) {
      double v = kernel_rand_unit(&s);
      a[i * N + j] = a[j * N + i] = v + (i == j ? 2.0 * N : 0);
    }
}

uint64_t kernel_run(void) {
  for (int i = 0; i < N * N; i++) l[i] = 0;
  for (int j = 0; j < N; j++) {
    double d = a[j * N + j];
    for (int k = 0; k < j; k++) d -= l[j * N + k] * l[j * N + k];
    d = sqrt(d);
    l[j * N + j] = d;
    for (int i = j + 1; i < N; i++) {
      double v = a[i * N + j];
      for (int k = 0; k < j; k++) v -= l[i * N + k] * l[j * N + k];
      l[i * N + j] = v / d;
    }
  }
  uint64_t h = 14695981039346656037ULL;
  for (int i = 0; i < N * N; i += 5) h = kernel_fold(h, l[i]);
  return h;
}
