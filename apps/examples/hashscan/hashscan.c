/* hashscan: a small in-memory key-value service, written as a quanta app.
 *
 * Two kinds of request share the cores, as in the papers' RocksDB and LevelDB services:
 *   GET <key>            look one key up in a hash table, answer its 64-byte value (~0.5 us)
 *   SCAN <key> <count>   walk <count> keys in order from <key>, answer how many and a digest
 *                        of their values (~1 ms for the default 5000)
 * Without preemption every GET that arrives during a SCAN waits for all of it. Built with
 * quanta-clang, the SCAN loop gets probes and quanta runs the GETs in between.
 *
 * Configuration (--app-config): "keys=N,scan=M" (defaults 100000 and 5000).
 * The handler is ordinary C: no yields, no quanta calls. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <quanta/quanta.h>

enum { VALUE_BYTES = 64 };

struct entry {
  uint64_t key;
  char value[VALUE_BYTES];
};

/* Built by setup, read-only afterwards: the workers share it without locks. */
static struct entry* g_sorted;   /* every key in order, for SCAN */
static uint32_t* g_slots;        /* open addressing: index into g_sorted + 1, 0 = empty */
static uint64_t g_keys = 100000, g_scan = 5000, g_mask;

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

/* Keys are spread out (not 0..N-1) so that a GET really searches. */
static uint64_t key_of(uint64_t i) { return i * 7919 + 13; }

static int parse_config(const char* config) {
  char text[256];
  snprintf(text, sizeof text, "%s", config ? config : "");
  for (char* part = strtok(text, ","); part != NULL; part = strtok(NULL, ",")) {
    unsigned long long v = 0;
    char extra;
    if (sscanf(part, "keys=%llu%c", &v, &extra) == 1 && v >= 1 && v <= (1ull << 26)) {
      g_keys = v;
    } else if (sscanf(part, "scan=%llu%c", &v, &extra) == 1 && v >= 1) {
      g_scan = v;
    } else {
      fprintf(stderr, "hashscan: bad configuration '%s' (expected keys=N,scan=M)\n", part);
      return -1;
    }
  }
  return 0;
}

static int hashscan_setup(const char* config) {
  if (parse_config(config) != 0) return -1;
  uint64_t slots = 1;
  while (slots < g_keys * 2) slots <<= 1;
  g_mask = slots - 1;
  g_sorted = malloc(g_keys * sizeof *g_sorted);
  g_slots = calloc(slots, sizeof *g_slots);
  if (g_sorted == NULL || g_slots == NULL) return -1;
  for (uint64_t i = 0; i < g_keys; ++i) {
    g_sorted[i].key = key_of(i);
    for (int b = 0; b < VALUE_BYTES; ++b) g_sorted[i].value[b] = (char)('a' + (mix(i + (uint64_t)b) % 26));
    uint64_t at = mix(g_sorted[i].key) & g_mask;
    while (g_slots[at] != 0) at = (at + 1) & g_mask;
    g_slots[at] = (uint32_t)(i + 1);
  }
  return 0;
}

static void hashscan_teardown(void) {
  free(g_sorted);
  free(g_slots);
  g_sorted = NULL;
  g_slots = NULL;
}

static const struct entry* lookup(uint64_t key) {
  for (uint64_t at = mix(key) & g_mask; g_slots[at] != 0; at = (at + 1) & g_mask) {
    const struct entry* e = &g_sorted[g_slots[at] - 1];
    if (e->key == key) return e;
  }
  return NULL;
}

/* The first entry whose key is >= key. */
static uint64_t lower_bound(uint64_t key) {
  uint64_t lo = 0, hi = g_keys;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (g_sorted[mid].key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static void answer(quanta_response* response, const char* text) {
  if (quanta_response_append(response, text, strlen(text)) != 0) response->status = 2;
}

static void hashscan_handle(const quanta_request* request, quanta_response* response) {
  char text[64];
  const uint32_t n = request->payload_len < sizeof text - 1 ? request->payload_len : (uint32_t)sizeof text - 1;
  memcpy(text, request->payload, n);
  text[n] = '\0';
  unsigned long long key = 0, count = 0;
  char extra;
  if (sscanf(text, "GET %llu%c", &key, &extra) == 1) {
    const struct entry* e = lookup(key);
    if (e == NULL) {
      response->status = 1;
      answer(response, "NOT_FOUND");
      return;
    }
    if (quanta_response_append(response, e->value, VALUE_BYTES) != 0) response->status = 2;
    return;
  }
  if (sscanf(text, "SCAN %llu %llu%c", &key, &count, &extra) == 2) {
    uint64_t digest = 0, seen = 0;
    for (uint64_t i = lower_bound(key); i < g_keys && seen < count; ++i, ++seen) {
      for (int b = 0; b < VALUE_BYTES; ++b) digest = digest * 31 + (unsigned char)g_sorted[i].value[b];
    }
    snprintf(text, sizeof text, "%llu %016llx", (unsigned long long)seen, (unsigned long long)digest);
    answer(response, text);
    response->value = seen;
    return;
  }
  response->status = 3;
  answer(response, "ERROR bad request");
}

/* The generator's request builder: a random key for GET, a random start for SCAN. */
static int hashscan_make_request(const quanta_request_spec* spec, void* buffer, uint32_t capacity, uint32_t* len) {
  const uint64_t key = key_of(quanta_random(spec->rng) % g_keys);
  const int n = spec->class_index == 0
                    ? snprintf(buffer, capacity, "GET %llu", (unsigned long long)key)
                    : snprintf(buffer, capacity, "SCAN %llu %llu", (unsigned long long)key, (unsigned long long)g_scan);
  if (n < 0 || (uint32_t)n >= capacity) return -1;
  *len = (uint32_t)n;
  return 0;
}

/* The mix of Tiny Quanta's RocksDB experiment: 99.5% GET, 0.5% SCAN. No nominal service
 * times: quanta measures each request's CPU time and computes slowdown from it. */
static const quanta_class kClasses[] = {
    {.name = "get", .share = 99.5, .service_us = 0},
    {.name = "scan", .share = 0.5, .service_us = 0},
};

static const quanta_app kHashScan = {
    .abi_version = QUANTA_APP_ABI_VERSION,
    .name = "hashscan",
    .setup = hashscan_setup,
    .handle_request = hashscan_handle,
    .teardown = hashscan_teardown,
    .classes = kClasses,
    .class_count = 2,
    .make_request = hashscan_make_request,
};

QUANTA_APP_EXPORT(kHashScan)
