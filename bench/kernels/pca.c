/* Column means and covariance matrix (Phoenix pca). */
#include <stdlib.h>
#include "kernel.h"

const char kernel_name[] = "pca";
enum { ROWS = 10000, COLS = 48 };
static double *x, *mean, *cov;

void kernel_init(void) {
  uint64_t s = 7;
  x = malloc(sizeof(double) * ROWS * COLS);
  mean = malloc(sizeof(double) * COLS);
  cov = malloc(sizeof(double) * COLS * COLS);
  for (int i = 0; i < ROWS * COLS; i++) x[i] = kernel_rand_unit(&s) * 10;
}

uint64_t kernel_run(void) {
  for (int j = 0; j < COLS; j++) {
    double m = 0;
    for (int i = 0; i < ROWS; i++) m += x[i * COLS + j];
    mean[j] = m / ROWS;
  }
  for (int a = 0; a < COLS; a++)
    for (int b = a; b < COLS; b++) {
      double c = 0;
      for (int i = 0; i < ROWS; i++) c += (x[i * COLS + a] - mean[a]) * (x[i * COLS + b] - mean[b]);
      cov[a * COLS + b] = cov[b * COLS + a] = c / (ROWS - 1);
    }
  uint64_t h = 14695981039346656037ULL;
  for (int i = 0; i < COLS * COLS; i++) h = kernel_fold(h, cov[i]);
  return h;
}
