/* Request handlers written as ordinary code: no yields, no probes, no quanta calls. The
 * test builds this file twice, with the pass (HANDLER(x) = x) and without it
 * (HANDLER(x) = plain_##x), so results can be compared with an uninstrumented run. */
#include <pthread.h>
#include <stdint.h>

#include "handlers.h"

/* A data-dependent mixing loop: long enough to span many 2 µs quanta. */
static uint64_t mix(uint64_t x, uint64_t rounds) {
  for (uint64_t i = 0; i < rounds; i++) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 29;
    if (x & 1) x += i;
  }
  return x;
}

void HANDLER(spin_handler)(void* arg) {
  struct spin_request* r = (struct spin_request*)arg;
  r->result = mix(r->seed, r->rounds);
  r->done_order = ++*r->finished;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Works for a long time with the lock held, then again without it. The driver bumps
 * *epoch each time the handler gives the CPU back; the handler records the epoch around
 * its critical section. */
void HANDLER(locked_handler)(void* arg) {
  struct locked_request* r = (struct locked_request*)arg;
  pthread_mutex_lock(&lock);
  r->epoch_at_lock = *r->epoch;
  uint64_t x = mix(r->seed, r->rounds);
  r->epoch_at_unlock = *r->epoch;
  pthread_mutex_unlock(&lock);
  r->result = mix(x, r->rounds);
  r->epoch_at_end = *r->epoch;
}

/* Steps of 3 (histogram's pixels): the loop tests `i < n` on a value that moves 3 at a time
 * and shares that test with its probe. */
void HANDLER(stride_handler)(void* arg) {
  struct stride_request* r = (struct stride_request*)arg;
  uint64_t s = 0;
  for (uint64_t i = 0; i < r->n; i += 3) s = s * 31 + r->bytes[i];
  r->result = s;
}

/* The same over short rows, each read every third byte up to its end or a zero byte: the
 * stepping loop is entered once per row, so its probe's distance is carried across entries
 * (and saved at both exits). Rows overlap: each starts one byte after the last. */
void HANDLER(stride_rows_handler)(void* arg) {
  struct stride_request* r = (struct stride_request*)arg;
  uint64_t s = 0;
  for (uint64_t start = 0; start + r->row <= r->n; start++) {
    uint64_t end = start + r->row;
    for (uint64_t j = start; j < end; j += 3) {
      if (!r->bytes[j]) break;
      s = s * 31 + r->bytes[j];
    }
  }
  r->result = s;
}

/* A tokenizer over the bytes: bytes below 64 separate words (about one in four), each word
 * hashed. The separator loop and the word loop walk one index forward, the second starting
 * where the first stopped: in clock mode they share one distance to the next probe (a scan
 * chain), so a probe can come in either loop with its distance counted in both. */
void HANDLER(words_handler)(void* arg) {
  struct stride_request* r = (struct stride_request*)arg;
  const unsigned char* b = r->bytes;
  uint64_t n = r->n, i = 0, s = 0;
  while (i < n) {
    while (i < n && b[i] < 64) i++;
    uint64_t h = 7;
    while (i < n && b[i] >= 64) h = (h ^ b[i++]) * 31;
    s = s * 33 + h;
  }
  r->result = s;
}

/* Counts down two at a time to the bottom of an unsigned range, entered once per round
 * (bzip2's quadrant loop, `for (j = n - 1; j >= 0; j--)` unrolled by two). Its `j > 1`
 * test is shared with the probe, whose adds saturate at 0, off j's odd lattice: a round
 * that ends at j = 1 leaves its next probe less than a step ahead, and the next round must
 * still start with a probe due, not run probe-free to its end. */
void HANDLER(countdown_handler)(void* arg) {
  struct countdown_request* r = (struct countdown_request*)arg;
  uint64_t s = 0;
  for (uint64_t k = 0; k < r->rounds; k++) {
    const uint64_t before = *r->epoch;
    for (uint64_t j = r->top; j > 1; j -= 2) s = s * 31 + r->bytes[j];
    r->yields_in_round[k] = *r->epoch - before;
  }
  r->result = s;
}
