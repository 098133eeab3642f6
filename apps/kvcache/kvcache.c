/* kvcache: an in-memory key-value cache served over the memcached text protocol, as a
 * quanta app. Real memcached clients (libmemcached's tools, pymemcache) talk to it, and
 * `quanta load --app kvcache-*.so` drives it (and real memcached) with the same requests.
 *
 * Commands: get, gets, set, add, replace, append, prepend, cas, delete, incr, decr, touch,
 * flush_all, version, stats, verbosity, quit, and `scan <key> <count>` (the long request:
 * walks <count> items from <key>'s bucket on, in the table's order, and answers
 * "SCANNED <items> <digest>").
 *
 * The table: chained buckets, each guarded by a spinlock taken with preemption disabled
 * (quanta_preempt_disable), so that a task is never preempted while it holds one and no
 * other task of its worker can spin on a lock whose holder is switched out. Everything
 * between critical sections (a scan's walk from bucket to bucket) is preemptible.
 *
 * Configuration (--app-config), comma-separated, all optional:
 *   keys=N          keys preloaded as key:0000000000 ... (default 100000; 0: none)
 *   value_bytes=B   their values' size (default 64)
 *   get=S,set=S,scan=S   the generator's shares of each class (default get=1)
 *   scan_count=C    items a generated scan walks (default 5000) */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <quanta/quanta.h>

#include "memcached_text.h"

/* ---- items and the table ---- */

typedef struct item {
  struct item* next;
  uint64_t cas;
  int64_t expires_at;   /* unix seconds; 0: never */
  uint64_t generation;  /* the flush generation it was stored in */
  uint32_t flags;
  uint32_t value_len;
  uint16_t key_len;
  char bytes[];         /* key, then value */
} item;

enum { LOCK_STRIPES = 1024 };

static item** g_buckets;
static uint64_t g_bucket_mask;
static atomic_flag g_locks[LOCK_STRIPES];
static _Atomic uint64_t g_next_cas = 1;
static _Atomic uint64_t g_generation = 1;
static _Atomic int64_t g_flush_at;  /* a delayed flush_all's time (unix seconds), 0: none */
static _Atomic uint64_t g_items, g_total_items, g_get_hits, g_get_misses, g_cmd_get, g_cmd_set;
static time_t g_started;

/* Configuration. */
static uint64_t g_keys = 100000, g_value_bytes = 64, g_scan_count = 5000;

static uint64_t hash_bytes(const char* p, uint32_t n) {
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
  for (uint32_t i = 0; i < n; ++i) h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

static void lock_stripe(uint64_t bucket) {
  quanta_preempt_disable();
  atomic_flag* lock = &g_locks[bucket % LOCK_STRIPES];
  while (atomic_flag_test_and_set_explicit(lock, memory_order_acquire)) {
  }
}

static void unlock_stripe(uint64_t bucket) {
  atomic_flag_clear_explicit(&g_locks[bucket % LOCK_STRIPES], memory_order_release);
  quanta_preempt_enable();
}

static int64_t now_s(void) { return (int64_t)time(NULL); }

/* memcached's exptime: 0 never, negative already expired, up to 30 days relative, else a
 * unix time. */
static int64_t expiry_of(int64_t exptime) {
  if (exptime == 0) return 0;
  if (exptime < 0) return -1;
  if (exptime <= 60 * 60 * 24 * 30) return now_s() + exptime;
  return exptime;
}

/* A delayed flush_all whose time has come starts a new generation. */
static uint64_t current_generation(void) {
  const int64_t at = atomic_load(&g_flush_at);
  if (at != 0 && now_s() >= at) {
    int64_t expected = at;
    if (atomic_compare_exchange_strong(&g_flush_at, &expected, 0)) atomic_fetch_add(&g_generation, 1);
  }
  return atomic_load(&g_generation);
}

static int live(const item* it, uint64_t generation) {
  if (it->generation != generation) return 0;
  return it->expires_at == 0 || (it->expires_at > 0 && now_s() < it->expires_at);
}

/* The link that points at `key`'s item in its bucket (or at the NULL ending it). Call with
 * the bucket's stripe locked. Dead items met on the way are unlinked and freed. */
static item** find_link(uint64_t bucket, const char* key, uint32_t key_len, uint64_t generation) {
  item** link = &g_buckets[bucket];
  while (*link != NULL) {
    item* it = *link;
    if (!live(it, generation)) {
      *link = it->next;
      free(it);
      atomic_fetch_sub(&g_items, 1);
      continue;
    }
    if (it->key_len == key_len && memcmp(it->bytes, key, key_len) == 0) return link;
    link = &it->next;
  }
  return link;
}

static item* new_item(const char* key, uint32_t key_len, uint32_t flags, int64_t expires_at, const void* v1,
                      uint32_t n1, const void* v2, uint32_t n2, uint64_t generation) {
  item* it = malloc(sizeof(item) + key_len + (size_t)n1 + n2);
  if (it == NULL) return NULL;
  it->next = NULL;
  it->cas = atomic_fetch_add(&g_next_cas, 1);
  it->expires_at = expires_at;
  it->generation = generation;
  it->flags = flags;
  it->value_len = n1 + n2;
  it->key_len = (uint16_t)key_len;
  memcpy(it->bytes, key, key_len);
  if (n1 > 0) memcpy(it->bytes + key_len, v1, n1);
  if (n2 > 0) memcpy(it->bytes + key_len + n1, v2, n2);
  return it;
}

/* Puts `it` in place of what `link` points at (NULL: appends). */
static void replace_at(item** link, item* it) {
  item* old = *link;
  if (old != NULL) {
    it->next = old->next;
    free(old);
  } else {
    atomic_fetch_add(&g_items, 1);
  }
  *link = it;
  atomic_fetch_add(&g_total_items, 1);
}

/* ---- commands ---- */

static void reply(quanta_response* r, const char* line) {
  if (mc_reply_line(r, line) != 0) r->status = 1;
}

static void do_get(const mc_command* c, quanta_response* r) {
  const uint64_t generation = current_generation();
  for (uint32_t i = 0; i < c->key_count; ++i) {
    const mc_key* k = &c->keys[i];
    const uint64_t bucket = hash_bytes(k->bytes, k->len) & g_bucket_mask;
    atomic_fetch_add(&g_cmd_get, 1);
    lock_stripe(bucket);
    item** link = find_link(bucket, k->bytes, k->len, generation);
    int written = 0;
    if (*link != NULL) {
      const item* it = *link;
      written = mc_reply_value(r, k, it->flags, it->bytes + it->key_len, it->value_len,
                               c->verb == MC_GETS ? &it->cas : NULL) == 0 ? 1 : -1;
    }
    unlock_stripe(bucket);
    atomic_fetch_add(written == 1 ? &g_get_hits : &g_get_misses, 1);
    if (written < 0) {
      /* The answer would not fit the response buffer (--max-response-bytes). */
      r->len = 0;
      reply(r, "SERVER_ERROR out of memory writing get response");
      return;
    }
  }
  reply(r, "END");
}

static void do_store(const mc_command* c, quanta_response* r) {
  const mc_key* k = &c->keys[0];
  const uint64_t generation = current_generation();
  const uint64_t bucket = hash_bytes(k->bytes, k->len) & g_bucket_mask;
  const int64_t expires_at = expiry_of(c->exptime);
  atomic_fetch_add(&g_cmd_set, 1);
  /* set/add/replace/cas: the new item is made before the lock. */
  item* fresh = NULL;
  if (c->verb != MC_APPEND && c->verb != MC_PREPEND) {
    fresh = new_item(k->bytes, k->len, c->flags, expires_at, c->data, c->data_len, NULL, 0, generation);
    if (fresh == NULL) {
      reply(r, "SERVER_ERROR out of memory storing object");
      return;
    }
  }
  const char* answer = "STORED";
  lock_stripe(bucket);
  item** link = find_link(bucket, k->bytes, k->len, generation);
  item* old = *link;
  switch (c->verb) {
    case MC_ADD:
      if (old != NULL) answer = "NOT_STORED";
      break;
    case MC_REPLACE:
      if (old == NULL) answer = "NOT_STORED";
      break;
    case MC_CAS:
      if (old == NULL) {
        answer = "NOT_FOUND";
      } else if (old->cas != c->cas_unique) {
        answer = "EXISTS";
      }
      break;
    case MC_APPEND:
    case MC_PREPEND:
      /* The old item's flags and expiry stay, as in memcached. */
      if (old == NULL) {
        answer = "NOT_STORED";
      } else if (c->verb == MC_APPEND) {
        fresh = new_item(k->bytes, k->len, old->flags, old->expires_at, old->bytes + old->key_len, old->value_len,
                         c->data, c->data_len, generation);
      } else {
        fresh = new_item(k->bytes, k->len, old->flags, old->expires_at, c->data, c->data_len,
                         old->bytes + old->key_len, old->value_len, generation);
      }
      if (old != NULL && fresh == NULL) answer = "SERVER_ERROR out of memory storing object";
      break;
    default:
      break;
  }
  const int store = strcmp(answer, "STORED") == 0;
  if (store) {
    replace_at(link, fresh);
    fresh = NULL;
  }
  unlock_stripe(bucket);
  free(fresh);
  if (!c->noreply) reply(r, answer);
}

static void do_delete(const mc_command* c, quanta_response* r) {
  const mc_key* k = &c->keys[0];
  const uint64_t bucket = hash_bytes(k->bytes, k->len) & g_bucket_mask;
  lock_stripe(bucket);
  item** link = find_link(bucket, k->bytes, k->len, current_generation());
  item* old = *link;
  if (old != NULL) {
    *link = old->next;
    atomic_fetch_sub(&g_items, 1);
  }
  unlock_stripe(bucket);
  free(old);
  if (!c->noreply) reply(r, old != NULL ? "DELETED" : "NOT_FOUND");
}

static void do_arithmetic(const mc_command* c, quanta_response* r) {
  const mc_key* k = &c->keys[0];
  const uint64_t generation = current_generation();
  const uint64_t bucket = hash_bytes(k->bytes, k->len) & g_bucket_mask;
  const char* error = NULL;
  uint64_t value = 0;
  lock_stripe(bucket);
  item** link = find_link(bucket, k->bytes, k->len, generation);
  item* old = *link;
  if (old == NULL) {
    error = "NOT_FOUND";
  } else {
    const char* digits = old->bytes + old->key_len;
    int ok = old->value_len > 0 && old->value_len <= 20;
    for (uint32_t i = 0; ok && i < old->value_len; ++i) {
      const uint64_t d = (uint64_t)(digits[i] - '0');
      if (d > 9 || value > (UINT64_MAX - d) / 10) ok = 0;
      else value = value * 10 + d;
    }
    if (!ok) {
      error = "CLIENT_ERROR cannot increment or decrement non-numeric value";
    } else {
      /* incr wraps at 2^64; decr stops at 0 (memcached's rules). */
      value = c->verb == MC_INCR ? value + c->number : (value < c->number ? 0 : value - c->number);
      char text[24];
      const int n = snprintf(text, sizeof text, "%llu", (unsigned long long)value);
      item* fresh = new_item(k->bytes, k->len, old->flags, old->expires_at, text, (uint32_t)n, NULL, 0, generation);
      if (fresh == NULL) {
        error = "SERVER_ERROR out of memory";
      } else {
        replace_at(link, fresh);
      }
    }
  }
  unlock_stripe(bucket);
  if (c->noreply) return;
  if (error != NULL) {
    reply(r, error);
  } else if (mc_reply_number(r, value) != 0) {
    r->status = 1;
  }
}

static void do_touch(const mc_command* c, quanta_response* r) {
  const mc_key* k = &c->keys[0];
  const uint64_t bucket = hash_bytes(k->bytes, k->len) & g_bucket_mask;
  lock_stripe(bucket);
  item** link = find_link(bucket, k->bytes, k->len, current_generation());
  const int found = *link != NULL;
  if (found) (*link)->expires_at = expiry_of(c->exptime);
  unlock_stripe(bucket);
  if (!c->noreply) reply(r, found ? "TOUCHED" : "NOT_FOUND");
}

static void do_flush(const mc_command* c, quanta_response* r) {
  if (c->exptime > 0) {
    atomic_store(&g_flush_at, expiry_of(c->exptime));
  } else {
    atomic_fetch_add(&g_generation, 1);
  }
  if (!c->noreply) reply(r, "OK");
}

static void do_stats(const mc_command* c, quanta_response* r) {
  if (c->stats_arg != NULL) {
    /* memcached's sub-statistics describe its slab allocator and connections: this cache
     * has none of them to show, so they are empty; anything else is unknown. */
    if (mc_stats_arg_is(c, "reset")) {
      reply(r, "RESET");
    } else if (mc_stats_section_without_contents(c)) {
      reply(r, "END");
    } else {
      reply(r, "ERROR");
    }
    return;
  }
  {
    char line[96];
    const struct {
      const char* name;
      unsigned long long value;
    } stats[] = {
        {"pid", (unsigned long long)getpid()},
        {"uptime", (unsigned long long)(now_s() - g_started)},
        {"time", (unsigned long long)now_s()},
        {"curr_items", (unsigned long long)atomic_load(&g_items)},
        {"total_items", (unsigned long long)atomic_load(&g_total_items)},
        {"cmd_get", (unsigned long long)atomic_load(&g_cmd_get)},
        {"cmd_set", (unsigned long long)atomic_load(&g_cmd_set)},
        {"get_hits", (unsigned long long)atomic_load(&g_get_hits)},
        {"get_misses", (unsigned long long)atomic_load(&g_get_misses)},
    };
    for (size_t i = 0; i < sizeof stats / sizeof stats[0]; ++i) {
      snprintf(line, sizeof line, "STAT %s %llu", stats[i].name, stats[i].value);
      reply(r, line);
    }
  }
  reply(r, "END");
}

/* The long request: walks items from the key's bucket on and digests them. */
static void do_scan(const mc_command* c, quanta_response* r) {
  const mc_key* k = &c->keys[0];
  const uint64_t generation = current_generation();
  uint64_t bucket = hash_bytes(k->bytes, k->len) & g_bucket_mask;
  uint64_t seen = 0, digest = 0;
  for (uint64_t walked = 0; walked <= g_bucket_mask && seen < c->number; ++walked) {
    lock_stripe(bucket);
    for (const item* it = g_buckets[bucket]; it != NULL && seen < c->number; it = it->next) {
      if (!live(it, generation)) continue;
      digest = digest * 31 + hash_bytes(it->bytes + it->key_len, it->value_len);
      ++seen;
    }
    unlock_stripe(bucket);
    bucket = (bucket + 1) & g_bucket_mask;
  }
  char line[64];
  snprintf(line, sizeof line, "SCANNED %llu %016llx", (unsigned long long)seen, (unsigned long long)digest);
  reply(r, line);
}

static void kvcache_handle(const quanta_request* request, quanta_response* response) {
  mc_command c;
  /* A single-key get comes with the framer's note of its key: no second parse. */
  if (mc_command_from_note(request->payload, request->payload_len, request->frame_note, &c) != 0 &&
      mc_parse_command(request->payload, request->payload_len, &c) != 0) {
    /* The framer accepted it, so this does not happen; answer rather than guess. */
    reply(response, "ERROR");
    return;
  }
  switch (c.verb) {
    case MC_GET:
    case MC_GETS: do_get(&c, response); break;
    case MC_SET:
    case MC_ADD:
    case MC_REPLACE:
    case MC_APPEND:
    case MC_PREPEND:
    case MC_CAS: do_store(&c, response); break;
    case MC_DELETE: do_delete(&c, response); break;
    case MC_INCR:
    case MC_DECR: do_arithmetic(&c, response); break;
    case MC_TOUCH: do_touch(&c, response); break;
    case MC_FLUSH_ALL: do_flush(&c, response); break;
    case MC_VERSION: reply(response, "VERSION 1.6.0-quanta-kvcache"); break; /* numeric first, as kv (libmemcached parses it) */
    case MC_STATS: do_stats(&c, response); break;
    case MC_VERBOSITY:
      if (!c.noreply) reply(response, "OK");
      break;
    case MC_SCAN: do_scan(&c, response); break;
    case MC_QUIT:
    case MC_VERB_COUNT: reply(response, "ERROR"); break;
  }
}

/* ---- classes, framing, generated requests ---- */

static quanta_class g_classes[MC_CLASS_COUNT] = {
    {.name = "get", .share = 1.0, .service_us = 0},
    {.name = "set", .share = 0.0, .service_us = 0},
    {.name = "scan", .share = 0.0, .service_us = 0},
    {.name = "delete", .share = 0.0, .service_us = 0},
    {.name = "other", .share = 0.0, .service_us = 0},
};

static const quanta_protocol kMemcachedText = {
    .name = "memcached-text",
    .frame_request = mc_frame_classified,
    .overloaded_reply = mc_overloaded_reply,
    .frame_reply = mc_frame_reply,
    .datagram = QUANTA_DATAGRAM_MEMCACHED,
    /* memcached runs a connection's commands in order; clients count on it. */
    .flags = QUANTA_PROTOCOL_IN_ORDER,
};

static uint32_t key_text(char* out, uint64_t index) { return (uint32_t)sprintf(out, "key:%010llu", (unsigned long long)index); }

/* A value's bytes are a function of its key's index, so any reader can check them. */
static void value_of(char* out, uint64_t index, uint64_t len) {
  for (uint64_t i = 0; i < len; ++i) out[i] = (char)('a' + (index + i) % 26);
}

static int kvcache_make_request(const quanta_request_spec* spec, void* buffer, uint32_t capacity, uint32_t* len) {
  char key[32];
  const uint64_t index = g_keys > 0 ? quanta_random(spec->rng) % g_keys : 0;
  const uint32_t key_len = key_text(key, index);
  char value[4096];
  if (spec->class_index == MC_CLASS_SET) {
    if (g_value_bytes > sizeof value) return -1;
    value_of(value, index, g_value_bytes);
  }
  const uint32_t n = mc_build_for_class(spec->class_index, buffer, capacity, key, key_len, value,
                                        (uint32_t)g_value_bytes, (uint32_t)g_scan_count);
  if (n == 0) return -1;
  *len = n;
  return 0;
}

static int parse_config(const char* config) {
  char text[512];
  if (snprintf(text, sizeof text, "%s", config ? config : "") >= (int)sizeof text) {
    fprintf(stderr, "kvcache: configuration longer than %zu bytes\n", sizeof text - 1);
    return -1;
  }
  for (char* part = strtok(text, ","); part != NULL; part = strtok(NULL, ",")) {
    unsigned long long v = 0;
    double share = 0;
    char extra;
    if (sscanf(part, "keys=%llu%c", &v, &extra) == 1 && v <= (1ull << 28)) {
      g_keys = v;
    } else if (sscanf(part, "value_bytes=%llu%c", &v, &extra) == 1 && v <= 4096) {
      g_value_bytes = v;
    } else if (sscanf(part, "scan_count=%llu%c", &v, &extra) == 1 && v >= 1 && v <= MC_MAX_SCAN_COUNT) {
      g_scan_count = v;
    } else if (sscanf(part, "get=%lf%c", &share, &extra) == 1 && share >= 0 && share <= 1e9) {
      g_classes[MC_CLASS_GET].share = share;
    } else if (sscanf(part, "set=%lf%c", &share, &extra) == 1 && share >= 0 && share <= 1e9) {
      g_classes[MC_CLASS_SET].share = share;
    } else if (sscanf(part, "scan=%lf%c", &share, &extra) == 1 && share >= 0 && share <= 1e9) {
      g_classes[MC_CLASS_SCAN].share = share;
    } else {
      fprintf(stderr,
              "kvcache: bad configuration '%s' (expected keys=N (<= 2^28), value_bytes=B (<= 4096), "
              "scan_count=C (1..%d), get=S, set=S, scan=S)\n",
              part, MC_MAX_SCAN_COUNT);
      return -1;
    }
  }
  if (g_classes[MC_CLASS_GET].share + g_classes[MC_CLASS_SET].share + g_classes[MC_CLASS_SCAN].share <= 0) {
    fprintf(stderr, "kvcache: the shares of get, set and scan are all 0\n");
    return -1;
  }
  return 0;
}

static int kvcache_setup(const char* config) {
  if (parse_config(config) != 0) return -1;
  g_started = now_s();
  uint64_t buckets = 1024;
  while (buckets < 2 * g_keys) buckets *= 2;
  g_buckets = calloc(buckets, sizeof(item*));
  if (g_buckets == NULL) return -1;
  g_bucket_mask = buckets - 1;
  char key[32], value[4096];
  for (uint64_t i = 0; i < g_keys; ++i) {
    const uint32_t key_len = key_text(key, i);
    value_of(value, i, g_value_bytes);
    item* it = new_item(key, key_len, 0, 0, value, (uint32_t)g_value_bytes, NULL, 0, atomic_load(&g_generation));
    if (it == NULL) return -1;
    const uint64_t bucket = hash_bytes(key, key_len) & g_bucket_mask;
    it->next = g_buckets[bucket];
    g_buckets[bucket] = it;
  }
  atomic_store(&g_items, g_keys);
  atomic_store(&g_total_items, g_keys);
  return 0;
}

static void kvcache_teardown(void) {
  if (g_buckets == NULL) return;
  for (uint64_t b = 0; b <= g_bucket_mask; ++b) {
    for (item* it = g_buckets[b]; it != NULL;) {
      item* next = it->next;
      free(it);
      it = next;
    }
  }
  free(g_buckets);
  g_buckets = NULL;
}

static const quanta_app kKvcache = {
    .abi_version = QUANTA_APP_ABI_VERSION,
    .name = "kvcache",
    .setup = kvcache_setup,
    .handle_request = kvcache_handle,
    .teardown = kvcache_teardown,
    .classes = g_classes,
    .class_count = MC_CLASS_COUNT,
    .make_request = kvcache_make_request,
    .protocol = &kMemcachedText,
};

QUANTA_APP_EXPORT(kKvcache)
