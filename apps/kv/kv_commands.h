// kv's memcached commands, each run inside a task on the store (kv_store.h).
#pragma once

#include <quanta/quanta.h>

#include "kv_store.h"
#include "memcached_text.h"

namespace kv {

// Counters for `stats`, shared by every worker.
struct Counters {
  std::atomic<uint64_t> cmd_get{0}, get_hits{0}, get_misses{0}, cmd_set{0}, total_items{0}, cmd_touch{0},
      scans{0}, scanned_items{0}, reclaimed{0};
};

// Runs one parsed command and writes its answer (nothing for noreply).
void run_command(Store& store, Counters& counters, const mc_command& c, quanta_response* r);

}  // namespace kv
