/* Dense matrix multiply, i-k-j order (SPLASH-2 / Phoenix matrix_multiply). */
#include <stdlib.h>
#include "kernel.h"

const char kernel_name[] = "matmul";
enum { N = 480 };
static double *a, *b, *c;

void kernel_init(void) {
  uint64_t s = 1;
  a = malloc(sizeof(double) * N * N);
  b = malloc(sizeof(double) * N * N);
  c = malloc(sizeof(double) * N * N);
  for (int i = 0; i < N * N; i++) {
    a[i] = kernel_rand_unit(&s) - 0.5;
    b[i] = kernel_rand_unit(&s) - 0.5;
  }
}

uint64_t kernel_run(void) {
  for (int i = 0; i < N * N; i++) c[i] = 0;
  for (int i = 0; i < N; i++)
    for (int k = 0; k < N; k++) {
      double aik = a[i * N + k];
      for (int j = 0; j < N; j++) c[i * N + j] += aik * b[k * N + j];
    }
  uint64_t h = 14695981039346656037ULL;
  for (int i = 0; i < N * N; i += 7) h = kernel_fold(h, c[i]);
  return h;
}
