/* A request handler whose hot loop is a scanner: a data-dependent branch, a store on one
 * side of it, and no call. Compiled by the pass in flag mode (tests/CMakeLists.txt), such
 * a loop is polled: it reads the thread's flag on every iteration, %fs-relative at an
 * offset held in a register, and only the slow path calls into the runtime. This is the
 * one loop shape that keeps its flag access in a register across a possible switch, so
 * the integration tests run it under the real monitor.
 *
 * The loop does not ask the clock how long it has run (that would be a call, and the loop
 * would keep a strided probe instead): the request's service time becomes a number of
 * scanned bytes at a fixed, rough bytes-per-cycle rate. Only orderings are asserted on it. */
#include <stdint.h>
#include <string.h>

#include "quanta/quanta.h"

enum { kTextBytes = 4096, kBytesPerCycle = 1 };

static uint8_t g_text[kTextBytes];
static int g_text_ready;

/* Deterministic text with about one newline in 16 bytes. Filled before any request runs
 * (the app's setup), so workers only read it. */
int polled_app_setup(const char* config) {
  (void)config;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < kTextBytes; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    g_text[i] = (uint8_t)(x >> 56);
  }
  g_text_ready = 1;
  return 0;
}

void polled_spin_handle(const quanta_request* request, quanta_response* response) {
  uint64_t service_cycles = 0;
  memcpy(&service_cycles, request->payload, sizeof service_cycles);
  const uint64_t bytes = service_cycles * kBytesPerCycle;
  uint32_t counts[16] = {0};
  uint64_t hash = request->id;
  for (uint64_t i = 0; i < bytes; ++i) {
    const uint8_t c = g_text[i & (kTextBytes - 1)];
    if (c < 16) {  /* the branch: a conditional store cannot become a select */
      counts[c]++;
      hash = hash * 33 + c;
    }
  }
  for (int c = 0; c < 16; ++c) hash += counts[c];
  response->status = g_text_ready ? 0 : 1;
  response->value = hash;
}

/* Words: the outer loop hashes one word per iteration and is polled; the inner loop scans
 * a word and leaves on a delimiter or on `i < bytes`, a test the pass shares with the
 * inner loop's probe (each entry starts a whole stride, since the parent polls). So the
 * inner loop reads no flag on its hot path, only when its stride runs out. A request of
 * over 4096 bytes (every long one) is a single word: the delimiter is a value no byte
 * has, and all of its time is in the inner loop, which only that shared probe can stop. */
void polled_words_handle(const quanta_request* request, quanta_response* response) {
  uint64_t service_cycles = 0;
  memcpy(&service_cycles, request->payload, sizeof service_cycles);
  const uint64_t bytes = service_cycles * kBytesPerCycle;
  const unsigned delimiter = bytes > kTextBytes ? 256u : 0u;
  uint64_t hash = request->id, words = 0;
  uint32_t odd_words[16] = {0};
  uint64_t i = 0;
  while (i < bytes) {
    uint64_t h = 5381;
    while (i < bytes && g_text[i & (kTextBytes - 1)] != delimiter) {
      h = h * 33 + g_text[i & (kTextBytes - 1)];
      ++i;
    }
    ++i;
    if (h & 1) odd_words[h >> 60]++; /* the outer loop's own branch (a conditional store) */
    ++words;
  }
  for (int c = 0; c < 16; ++c) hash = hash * 31 + odd_words[c];
  response->status = g_text_ready ? 0 : 1;
  response->value = hash + words;
}
