/* colocation: a latency-critical service and best-effort batch work in one app, the pair of
 * LibPreemptible's co-location experiment (its §IV-C and Figs. 13-14):
 *   GET <key>         look one key up in a hash table, answer its 64-byte value (~0.5 us): LC
 *   COMPRESS <block>  deflate one 25 KB block of text with zlib, answer the compressed size
 *                     and its CRC-32 (hundreds of us): BE
 * zlib is Debian's source built by quanta's wrappers (scripts/zlib/build.sh), so deflate's
 * loops carry probes and a COMPRESS can be preempted for a GET, or held to a bandwidth
 * budget with `--class-schedule lc,be:RUNTIME/PERIOD`.
 *
 * Configuration (--app-config): keys=N (100000), block_bytes=B (25600), blocks=K (64),
 * level=L (zlib level, 6), be_share=P (percent of requests that are COMPRESS, 2). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <quanta/quanta.h>
#include <zlib.h>

enum { VALUE_BYTES = 64 };

struct entry {
  uint64_t key;
  char value[VALUE_BYTES];
};

/* Built by setup, read-only afterwards: workers share them without locks. */
static struct entry* g_entries;
static uint32_t* g_slots; /* open addressing: index into g_entries + 1, 0 = empty */
static uint64_t g_mask;
static unsigned char* g_blocks; /* g_block_count blocks of g_block_bytes, text-like */
static uint64_t g_keys = 100000, g_block_bytes = 25600, g_block_count = 64;
static int g_level = 6;

/* Shares are set by setup from be_share: quanta reads an app's classes after its setup. */
static quanta_class g_classes[] = {
    {.name = "get", .share = 98, .service_us = 0},
    {.name = "compress", .share = 2, .service_us = 0},
};

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

static uint64_t key_of(uint64_t i) { return i * 7919 + 13; }

static int parse_config(const char* config) {
  char text[256];
  snprintf(text, sizeof text, "%s", config ? config : "");
  for (char* part = strtok(text, ","); part != NULL; part = strtok(NULL, ",")) {
    unsigned long long v = 0;
    double share = 0;
    char extra;
    if (sscanf(part, "keys=%llu%c", &v, &extra) == 1 && v >= 1 && v <= (1ull << 26)) {
      g_keys = v;
    } else if (sscanf(part, "block_bytes=%llu%c", &v, &extra) == 1 && v >= 64 && v <= (16ull << 20)) {
      g_block_bytes = v;
    } else if (sscanf(part, "blocks=%llu%c", &v, &extra) == 1 && v >= 1 && v <= 4096) {
      g_block_count = v;
    } else if (sscanf(part, "level=%llu%c", &v, &extra) == 1 && v <= 9) {
      g_level = (int)v;
    } else if (sscanf(part, "be_share=%lf%c", &share, &extra) == 1 && share >= 0 && share <= 100) {
      g_classes[0].share = 100 - share;
      g_classes[1].share = share;
    } else {
      fprintf(stderr,
              "colocation: bad configuration '%s' (expected keys=N (1..2^26), block_bytes=B (64..16M), "
              "blocks=K (1..4096), level=L (0..9), be_share=P (0..100))\n",
              part);
      return -1;
    }
  }
  return 0;
}

/* Text for deflate to work on: words drawn from a small vocabulary with a skewed
 * frequency, so a block compresses about as well as prose (~3x at level 6). */
static void fill_text(unsigned char* out, uint64_t n, uint64_t seed) {
  static const char* const kWords[] = {"the", "of", "and", "a", "to", "in", "is", "you", "that", "it",
                                       "he", "was", "for", "on", "are", "as", "with", "his", "they",
                                       "at", "be", "this", "have", "from", "or", "one", "had", "by",
                                       "word", "but", "not", "what", "all", "were", "we", "when",
                                       "your", "can", "said", "there", "use", "an", "each", "which",
                                       "she", "do", "how", "their", "if", "will", "up", "other",
                                       "about", "out", "many", "then", "them", "these", "so", "some",
                                       "request", "quantum", "preempt", "latency"};
  const uint64_t vocabulary = sizeof kWords / sizeof kWords[0];
  uint64_t at = 0, state = seed;
  while (at < n) {
    state = mix(state + 0x9e3779b97f4a7c15ull);
    /* Two draws, the smaller kept: common words come first in the list. */
    const uint64_t a = state % vocabulary, b = (state >> 32) % vocabulary;
    const char* w = kWords[a < b ? a : b];
    for (const char* c = w; *c != '\0' && at < n; ++c) out[at++] = (unsigned char)*c;
    if (at < n) out[at++] = (state & 0xf0000) == 0 ? '\n' : ' ';
  }
}

static int colocation_setup(const char* config) {
  if (parse_config(config) != 0) return -1;
  uint64_t slots = 1;
  while (slots < g_keys * 2) slots <<= 1;
  g_mask = slots - 1;
  g_entries = malloc(g_keys * sizeof *g_entries);
  g_slots = calloc(slots, sizeof *g_slots);
  g_blocks = malloc(g_block_count * g_block_bytes);
  if (g_entries == NULL || g_slots == NULL || g_blocks == NULL) {
    fprintf(stderr, "colocation: out of memory for %llu keys and %llu blocks of %llu bytes\n",
            (unsigned long long)g_keys, (unsigned long long)g_block_count, (unsigned long long)g_block_bytes);
    return -1;
  }
  for (uint64_t i = 0; i < g_keys; ++i) {
    g_entries[i].key = key_of(i);
    for (int b = 0; b < VALUE_BYTES; ++b) g_entries[i].value[b] = (char)('a' + mix(i * VALUE_BYTES + (uint64_t)b) % 26);
    uint64_t at = mix(g_entries[i].key) & g_mask;
    while (g_slots[at] != 0) at = (at + 1) & g_mask;
    g_slots[at] = (uint32_t)(i + 1);
  }
  for (uint64_t k = 0; k < g_block_count; ++k) fill_text(g_blocks + k * g_block_bytes, g_block_bytes, k + 1);
  return 0;
}

static void colocation_teardown(void) {
  free(g_entries);
  free(g_slots);
  free(g_blocks);
  g_entries = NULL;
  g_slots = NULL;
  g_blocks = NULL;
}

static const struct entry* lookup(uint64_t key) {
  for (uint64_t at = mix(key) & g_mask; g_slots[at] != 0; at = (at + 1) & g_mask) {
    const struct entry* e = &g_entries[g_slots[at] - 1];
    if (e->key == key) return e;
  }
  return NULL;
}

static void answer(quanta_response* response, const char* text) {
  if (quanta_response_append(response, text, strlen(text)) != 0) response->status = 2;
}

/* Deflates block `index` into a buffer of deflateBound's size (malloc'd per request, as a
 * batch job's would be; the task's stack is too small for it). */
static void compress_block(uint64_t index, quanta_response* response) {
  const unsigned char* in = g_blocks + index * g_block_bytes;
  uLongf out_len = compressBound((uLong)g_block_bytes);
  unsigned char* out = malloc(out_len);
  if (out == NULL) {
    response->status = 4;
    answer(response, "SERVER_ERROR out of memory");
    return;
  }
  const int rc = compress2(out, &out_len, in, (uLong)g_block_bytes, g_level);
  if (rc != Z_OK) {
    free(out);
    response->status = 4;
    answer(response, "SERVER_ERROR deflate failed");
    return;
  }
  char text[64];
  const unsigned long crc = crc32(0L, out, (uInt)out_len);
  free(out);
  snprintf(text, sizeof text, "%lu %08lx", (unsigned long)out_len, crc);
  answer(response, text);
  response->value = out_len;
}

static void colocation_handle(const quanta_request* request, quanta_response* response) {
  char text[64];
  const uint32_t n = request->payload_len < sizeof text - 1 ? request->payload_len : (uint32_t)sizeof text - 1;
  memcpy(text, request->payload, n);
  text[n] = '\0';
  unsigned long long arg = 0;
  char extra;
  if (sscanf(text, "GET %llu%c", &arg, &extra) == 1) {
    const struct entry* e = lookup(arg);
    if (e == NULL) {
      response->status = 1;
      answer(response, "NOT_FOUND");
    } else if (quanta_response_append(response, e->value, VALUE_BYTES) != 0) {
      response->status = 2;
    }
    return;
  }
  if (sscanf(text, "COMPRESS %llu%c", &arg, &extra) == 1) {
    if (arg >= g_block_count) {
      response->status = 1;
      answer(response, "CLIENT_ERROR no such block");
      return;
    }
    compress_block(arg, response);
    return;
  }
  response->status = 3;
  answer(response, "ERROR bad request");
}

static int colocation_make_request(const quanta_request_spec* spec, void* buffer, uint32_t capacity, uint32_t* len) {
  const uint64_t r = quanta_random(spec->rng);
  const int n = spec->class_index == 0
                    ? snprintf(buffer, capacity, "GET %llu", (unsigned long long)key_of(r % g_keys))
                    : snprintf(buffer, capacity, "COMPRESS %llu", (unsigned long long)(r % g_block_count));
  if (n < 0 || (uint32_t)n >= capacity) return -1;
  *len = (uint32_t)n;
  return 0;
}

static const quanta_app kColocation = {
    .abi_version = QUANTA_APP_ABI_VERSION,
    .name = "colocation",
    .setup = colocation_setup,
    .handle_request = colocation_handle,
    .teardown = colocation_teardown,
    .classes = g_classes,
    .class_count = 2,
    .make_request = colocation_make_request,
};

QUANTA_APP_EXPORT(kColocation)
