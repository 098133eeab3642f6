/* k-means clustering, Lloyd iterations (Phoenix kmeans). */
#include <stdlib.h>
#include "kernel.h"

const char kernel_name[] = "kmeans";
enum { N = 60000, D = 4, K = 16, ITERS = 8 };
static double *pts, *cent, *sum;
static int *assign, *cnt;

void kernel_init(void) {
  uint64_t s = 6;
  pts = malloc(sizeof(double) * N * D);
  cent = malloc(sizeof(double) * K * D);
  sum = malloc(sizeof(double) * K * D);
  assign = malloc(sizeof(int) * N);
  cnt = malloc(sizeof(int) * K);
  for (int i = 0; i < N * D; i++) pts[i] = kernel_rand_unit(&s) * 100;
}

uint64_t kernel_run(void) {
  for (int c = 0; c < K * D; c++) cent[c] = pts[c * 37 % (N * D)];
  for (int it = 0; it < ITERS; it++) {
    for (int i = 0; i < N; i++) {
      int best = 0;
      double bestd = 1e300;
      for (int c = 0; c < K; c++) {
        double d = 0;
        for (int j = 0; j < D; j++) {
          double t = pts[i * D + j] - cent[c * D + j];
          d += t * t;
        }
        if (d < bestd) { bestd = d; best = c; }
      }
      assign[i] = best;
    }
    for (int c = 0; c < K * D; c++) sum[c] = 0;
    for (int c = 0; c < K; c++) cnt[c] = 0;
    for (int i = 0; i < N; i++) {
      cnt[assign[i]]++;
      for (int j = 0; j < D; j++) sum[assign[i] * D + j] += pts[i * D + j];
    }
    for (int c = 0; c < K; c++)
      if (cnt[c])
        for (int j = 0; j < D; j++) cent[c * D + j] = sum[c * D + j] / cnt[c];
  }
  uint64_t h = 14695981039346656037ULL;
  for (int c = 0; c < K * D; c++) h = kernel_fold(h, cent[c]);
  return h;
}
