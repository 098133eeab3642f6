// kv: a key-value server on LevelDB, compiled whole with quanta's pass, speaking the
// memcached text protocol (apps/memcached_text) over TCP and, with memcached's frame
// header, UDP. Served by `quanta serve --app build/lib/quanta/apps/kv-clock.so` (or
// kv-flag.so); any memcached client talks to it. docs/kv.md describes it.
//
// Commands: memcached's (get, gets, set, add, replace, append, prepend, cas, delete,
// incr, decr, touch, flush_all, version, stats, verbosity, quit, noreply) and
// `scan <start-key> <count>`, the long request: a LevelDB iterator over <count> items
// from <start-key> on, in key order, answered "SCANNED <items> <digest>".
//
// The files: kv_item.h (an item's layout in LevelDB), kv_store.* (the database, its locks
// and why, cas uniques, flush_all), kv_commands.* (the commands), kv_config.* (settings),
// kv_zipf.* (generated keys' popularity), this file (the app: classes, framing, generated
// requests, setup and teardown).
#include <cstdio>
#include <memory>
#include <mutex>

#include <quanta/quanta.h>

#include "kv_commands.h"
#include "kv_config.h"
#include "kv_store.h"
#include "kv_zipf.h"
#include "memcached_text.h"

namespace {

kv::Config g_config;
kv::Store g_store;
kv::Counters g_counters;
std::unique_ptr<kv::Zipf> g_zipf;  // with zipf=S: the generator's key popularity
std::mutex g_open_mutex;
bool g_open_failed = false;

quanta_class g_classes[MC_CLASS_COUNT] = {
    {.name = "get", .share = 1.0, .service_us = 0},
    {.name = "set", .share = 0.0, .service_us = 0},
    {.name = "scan", .share = 0.0, .service_us = 0},
    {.name = "delete", .share = 0.0, .service_us = 0},
    {.name = "other", .share = 0.0, .service_us = 0},
};

void kv_handle(const quanta_request* request, quanta_response* response) {
  mc_command c;
  // A single-key get comes with the framer's note of its key: no second parse.
  if (mc_command_from_note(request->payload, request->payload_len, request->frame_note, &c) != 0 &&
      mc_parse_command(request->payload, request->payload_len, &c) != 0) {
    // The framer accepted it, so this does not happen; answer rather than guess.
    if (mc_reply_line(response, "ERROR") != 0) response->status = 1;
    return;
  }
  kv::run_command(g_store, g_counters, c, response);
}

const quanta_protocol kMemcachedText = {
    .name = "memcached-text",
    .frame_request = mc_frame_classified,
    .overloaded_reply = mc_overloaded_reply,
    .frame_reply = mc_frame_reply,
    .datagram = QUANTA_DATAGRAM_MEMCACHED,
    // memcached runs a connection's commands in order; clients count on it.
    .flags = QUANTA_PROTOCOL_IN_ORDER,
};

int kv_make_request(const quanta_request_spec* spec, void* buffer, uint32_t capacity, uint32_t* len) {
  char key[32];
  uint64_t index = 0;
  if (g_zipf != nullptr) {
    // 53 random bits: a double in [0, 1).
    index = g_zipf->draw([spec] { return static_cast<double>(quanta_random(spec->rng) >> 11) * 0x1.0p-53; });
  } else if (g_config.keys > 0) {
    index = quanta_random(spec->rng) % g_config.keys;
  }
  // A scan from the first key walks the database from its start (Concord's whole-database scans).
  if (spec->class_index == MC_CLASS_SCAN && g_config.scan_from_first) index = 0;
  const uint32_t key_len = kv::generated_key(key, index);
  char value[4096];
  if (spec->class_index == MC_CLASS_SET) kv::generated_value(value, index, g_config.value_bytes);
  const uint32_t n = mc_build_for_class(spec->class_index, static_cast<char*>(buffer), capacity, key, key_len, value,
                                        static_cast<uint32_t>(g_config.value_bytes),
                                        static_cast<uint32_t>(g_config.scan_count));
  if (n == 0) return -1;
  *len = n;
  return 0;
}

// Parses the settings only: `quanta load` calls setup too, in the client's process, to
// generate requests, and must not open (or need) the server's database.
int kv_setup(const char* config) {
  g_config = kv::Config();
  if (!kv::parse_config(config, &g_config)) return -1;
  g_classes[MC_CLASS_GET].share = g_config.get_share;
  g_classes[MC_CLASS_SET].share = g_config.set_share;
  g_classes[MC_CLASS_SCAN].share = g_config.scan_share;
  g_classes[MC_CLASS_DELETE].share = g_config.delete_share;
  g_zipf.reset();
  if (g_config.zipf > 0 && g_config.keys > 0) g_zipf = std::make_unique<kv::Zipf>(g_config.zipf, g_config.keys);
  return 0;
}

// The first worker to start opens the database (only a server runs workers); the others
// wait for it and fail alike if it could not.
int kv_setup_worker(int) {
  std::lock_guard<std::mutex> lock(g_open_mutex);
  if (g_store.is_open()) return 0;
  if (g_open_failed) return -1;
  if (!g_store.open(g_config)) {
    g_open_failed = true;
    return -1;
  }
  return 0;
}

// After every worker's last request: closes the database, so a clean stop leaves it
// consistent and unlocked for the next server.
void kv_teardown() {
  std::lock_guard<std::mutex> lock(g_open_mutex);
  g_store.close();
}

const quanta_app kKv = {
    .abi_version = QUANTA_APP_ABI_VERSION,
    .name = "kv",
    .setup = kv_setup,
    .setup_worker = kv_setup_worker,
    .handle_request = kv_handle,
    .teardown_worker = nullptr,
    .teardown = kv_teardown,
    .classes = g_classes,
    .class_count = MC_CLASS_COUNT,
    .make_request = kv_make_request,
    .protocol = &kMemcachedText,
};

}  // namespace

QUANTA_APP_EXPORT(kKv)
