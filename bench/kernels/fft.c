/* Iterative radix-2 complex FFT, forward then inverse (SPLASH-2 fft). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"

const char kernel_name[] = "fft";
enum { LOGN = 16, N = 1 << LOGN, ROUNDS = 4 };
static double *re0, *im0, *re, *im, *wr, *wi;

void kernel_init(void) {
  uint64_t s = 4;
  re0 = malloc(sizeof(double) * N); im0 = malloc(sizeof(double) * N);
  re = malloc(sizeof(double) * N); im = malloc(sizeof(double) * N);
  wr = malloc(sizeof(double) * N / 2); wi = malloc(sizeof(double) * N / 2);
  for (int i = 0; i < N; i++) { re0[i] = kernel_rand_unit(&s); im0[i] = 0; }
  for (int i = 0; i < N / 2; i++) {
    wr[i] = cos(2 * M_PI * i / N);
    wi[i] = -sin(2 * M_PI * i / N);
  }
}

static void fft(int inverse) {
  for (unsigned i = 1, j = 0; i < N; i++) {  /* bit reversal */
    unsigned bit = N >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      double t = re[i]; re[i] = re[j]; re[j] = t;
      t = im[i]; im[i] = im[j]; im[j] = t;
    }
  }
  for (int len = 2; len <= N; len <<= 1) {
    int half = len >> 1, step = N / len;
    for (int i = 0; i < N; i += len)
      for (int k = 0; k < half; k++) {
        double cr = wr[k * step], ci = inverse ? -wi[k * step] : wi[k * step];
        double xr = re[i + k + half] * cr - im[i + k + half] * ci;
        double xi = re[i + k + half] * ci + im[i + k + half] * cr;
        re[i + k + half] = re[i + k] - xr; im[i + k + half] = im[i + k] - xi;
        re[i + k] += xr; im[i + k] += xi;
      }
  }
  if (inverse)
    for (int i = 0; i < N; i++) { re[i] /= N; im[i] /= N; }
}

uint64_t kernel_run(void) {
  uint64_t h = 14695981039346656037ULL;
  memcpy(re, re0, sizeof(double) * N);
  memcpy(im, im0, sizeof(double) * N);
  for (int r = 0; r < ROUNDS; r++) {
    fft(0);
    h = kernel_fold(h, re[r + 1]);
    fft(1);
  }
  for (int i = 0; i < N; i += 97) h = kernel_fold(h, re[i]);
  return h;
}
