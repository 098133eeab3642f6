/* All-pairs gravitational n-body, leapfrog steps (SPLASH-2 barnes/water-nsquared-like). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"

const char kernel_name[] = "nbody";
enum { N = 800, STEPS = 8 };
static double *pos0, *pos, *vel, *acc, *mass;

void kernel_init(void) {
  uint64_t s = 14;
  pos0 = malloc(sizeof(double) * 3 * N); pos = malloc(sizeof(double) * 3 * N);
  vel = malloc(sizeof(double) * 3 * N); acc = malloc(sizeof(double) * 3 * N);
  mass = malloc(sizeof(double) * N);
  for (int i = 0; i < 3 * N; i++) pos0[i] = kernel_rand_unit(&s) * 100;
  for (int i = 0; i < N; i++) mass[i] = 1 + kernel_rand_unit(&s);
}

uint64_t kernel_run(void) {
  memcpy(pos, pos0, sizeof(double) * 3 * N);
  memset(vel, 0, sizeof(double) * 3 * N);
  for (int step = 0; step < STEPS; step++) {
    for (int i = 0; i < N; i++) {
      double ax = 0, ay = 0, az = 0;
      for (int j = 0; j < N; j++) {
        double dx = pos[3 * j] - pos[3 * i], dy = pos[3 * j + 1] - pos[3 * i + 1],
               dz = pos[3 * j + 2] - pos[3 * i + 2];
        double r2 = dx * dx + dy * dy + dz * dz + 0.01;
        double inv = mass[j] / (r2 * sqrt(r2));
        ax += dx * inv; ay += dy * inv; az += dz * inv;
      }
      acc[3 * i] = ax; acc[3 * i + 1] = ay; acc[3 * i + 2] = az;
    }
    for (int i = 0; i < 3 * N; i++) {
      vel[i] += 0.001 * acc[i];
      pos[i] += 0.001 * vel[i];
    }
  }
  uint64_t h = 14695981039346656037ULL;
  for (int i = 0; i < 3 * N; i++) h = kernel_fold(h, pos[i]);
  return h;
}
