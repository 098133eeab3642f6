// The registry of clock twins (include/quanta/flag_twins.h): each instrumented object's
// constructor adds its table, its destructor (dlclose) takes it out. Read at start-up,
// when the runtime picks the handler the dispatcher runs itself; never on the hot path,
// so a mutex is fine.
#include "quanta/flag_twins.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace {

struct Table {
  const quanta_flag_twin* pairs;
  uint64_t count;
};

struct Registry {
  std::mutex lock;
  std::vector<Table> tables;
};

// Built on first use: a constructor of an object linked before this one may register
// before this file's own static initializers would have run. Never destroyed: at exit the
// objects' destructors (.fini_array, run by _dl_fini) unregister after the C++ static
// destructors (atexit) have run, and would find a destroyed vector (ASan saw exactly that).
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

}  // namespace

extern "C" {

void quanta_register_flag_twins(const quanta_flag_twin* pairs, uint64_t count) {
  if (pairs == nullptr || count == 0) return;
  Registry& r = registry();
  std::lock_guard<std::mutex> hold(r.lock);
  r.tables.push_back({pairs, count});
}

void quanta_unregister_flag_twins(const quanta_flag_twin* pairs) {
  Registry& r = registry();
  std::lock_guard<std::mutex> hold(r.lock);
  std::erase_if(r.tables, [pairs](const Table& t) { return t.pairs == pairs; });
}

const void* quanta_flag_twin_of(const void* flag_fn) {
  if (flag_fn == nullptr) return nullptr;
  Registry& r = registry();
  std::lock_guard<std::mutex> hold(r.lock);
  for (const Table& t : r.tables) {
    for (uint64_t i = 0; i < t.count; ++i) {
      if (t.pairs[i].flag_fn == flag_fn) return t.pairs[i].clock_fn;
    }
  }
  return nullptr;
}

}  // extern "C"
