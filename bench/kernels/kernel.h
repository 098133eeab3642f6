/* Interface between a probe-overhead kernel (one .c per kernel, compiled plain and with
 * each probe mode) and the harness (harness.c, never instrumented).
 *
 * kernel_init() builds the input once; kernel_run() does the measured work and returns a
 * checksum, which must not depend on how the kernel was compiled. kernel_run() must leave
 * its inputs unchanged so that it can be run again. */
#ifndef QUANTA_BENCH_KERNEL_H
#define QUANTA_BENCH_KERNEL_H

#include <stddef.h>
#include <stdint.h>

extern const char kernel_name[];
void kernel_init(void);
uint64_t kernel_run(void);

/* Deterministic inputs: xorshift64*, seeded per kernel. */
static inline uint64_t kernel_rand(uint64_t* s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1DULL;
}
static inline double kernel_rand_unit(uint64_t* s) {
  return (double)(kernel_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}
/* Folds a double into a checksum via a fixed rounding, so tiny last-bit differences in
 * libm would not matter (the pass does not reorder FP math anyway). */
static inline uint64_t kernel_fold(uint64_t h, double v) {
  int64_t q = (int64_t)(v * 1e6);
  return (h ^ (uint64_t)q) * 0x100000001B3ULL;
}

#endif
