#ifndef QUANTA_TESTS_PASS_HANDLERS_H
#define QUANTA_TESTS_PASS_HANDLERS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct spin_request {
  uint64_t seed;
  uint64_t rounds;
  uint64_t result;
  int* finished;    /* shared completion counter */
  int done_order;   /* 1 for the first request to finish, 2 for the second, ... */
};

struct locked_request {
  uint64_t seed;
  uint64_t rounds;
  uint64_t result;
  const volatile uint64_t* epoch;
  uint64_t epoch_at_lock, epoch_at_unlock, epoch_at_end;
};

struct stride_request {
  const unsigned char* bytes;
  uint64_t n;
  uint64_t row;  /* stride_rows_handler: bytes per row */
  uint64_t result;
};

/* countdown_handler: `rounds` entries of a loop counting down two at a time from `top`
 * while above 1. The driver bumps *epoch each time the handler gives the CPU back. */
struct countdown_request {
  const unsigned char* bytes;
  uint64_t top;
  uint64_t rounds;
  const volatile uint64_t* epoch;
  uint64_t yields_in_round[8];
  uint64_t result;
};

#ifndef HANDLER
#define HANDLER(name) name
#endif

void spin_handler(void* arg);
void locked_handler(void* arg);
void stride_handler(void* arg);
void stride_rows_handler(void* arg);
void words_handler(void* arg);
void countdown_handler(void* arg);
void plain_spin_handler(void* arg);
void plain_stride_handler(void* arg);
void plain_stride_rows_handler(void* arg);
void plain_words_handler(void* arg);
void plain_countdown_handler(void* arg);
void plain_locked_handler(void* arg);
/* scanner_fixed.c: fixed clock strides, probes counted in quanta_stat_probes_executed. */
uint64_t count_words(const char* text, uint64_t n);
extern uint64_t quanta_stat_probes_executed;

#ifdef __cplusplus
}
#endif

#endif
