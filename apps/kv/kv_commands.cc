#include "kv_commands.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unistd.h>

#include <leveldb/iterator.h>

namespace kv {
namespace {

int64_t g_started = now_s();

// The framer bounds a value by the request limit (--max-payload-bytes), but appends could
// grow an item without end; past memcached's default item size (its -I, 1 MB) they get
// memcached's answer for an item too large to store.
constexpr size_t kMaxGrownItemBytes = 1u << 20;

void reply(quanta_response* r, const char* line) {
  if (mc_reply_line(r, line) != 0) r->status = 1;
}

void do_get(Store& store, Counters& n, const mc_command& c, quanta_response* r) {
  std::string stored;
  for (uint32_t i = 0; i < c.key_count; ++i) {
    const mc_key& k = c.keys[i];
    n.cmd_get.fetch_add(1, std::memory_order_relaxed);
    ItemHeader h;
    leveldb::Slice data;
    bool dead = false;
    if (!store.read(k.bytes, k.len, &stored, &h, &data, &dead)) {
      n.get_misses.fetch_add(1, std::memory_order_relaxed);
      if (dead && store.reclaim(k.bytes, k.len, h.cas)) n.reclaimed.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    n.get_hits.fetch_add(1, std::memory_order_relaxed);
    if (mc_reply_value(r, &k, h.flags, data.data(), static_cast<uint32_t>(data.size()),
                       c.verb == MC_GETS ? &h.cas : nullptr) != 0) {
      // The answer would not fit the response buffer (--max-response-bytes).
      r->len = 0;
      reply(r, "SERVER_ERROR out of memory writing get response");
      return;
    }
  }
  reply(r, "END");
}

// set, add, replace, append, prepend, cas: read (where the verb needs it) and write under
// the key's stripe, so that no other write to the key comes between.
void do_store(Store& store, Counters& n, const mc_command& c, quanta_response* r) {
  const mc_key& k = c.keys[0];
  n.cmd_set.fetch_add(1, std::memory_order_relaxed);
  const leveldb::Slice value(c.data, c.data_len);
  const char* answer = "STORED";
  std::string item, old_stored;
  char dbkey[MC_KEY_ROOM];
  {
    Store::Stripe stripe(store, k.bytes, k.len);
    ItemHeader old;
    leveldb::Slice old_data;
    const bool exists = c.verb != MC_SET && store.read(k.bytes, k.len, &old_stored, &old, &old_data);
    ItemHeader h;
    h.flags = c.flags;
    h.expires_at = expiry_of(c.exptime);
    switch (c.verb) {
      case MC_ADD:
        if (exists) answer = "NOT_STORED";
        break;
      case MC_REPLACE:
        if (!exists) answer = "NOT_STORED";
        break;
      case MC_CAS:
        if (!exists) answer = "NOT_FOUND";
        else if (old.cas != c.cas_unique) answer = "EXISTS";
        break;
      case MC_APPEND:
      case MC_PREPEND:
        // The old item's flags and expiry stay, as in memcached.
        if (!exists) answer = "NOT_STORED";
        else if (old_data.size() + value.size() > kMaxGrownItemBytes) answer = "SERVER_ERROR out of memory storing object";
        h.flags = old.flags;
        h.expires_at = old.expires_at;
        break;
      default:
        break;
    }
    if (std::strcmp(answer, "STORED") == 0) {
      h = store.fresh_header(h.flags, h.expires_at);
      if (c.verb == MC_APPEND) item = encode_item(h, old_data, value);
      else if (c.verb == MC_PREPEND) item = encode_item(h, value, old_data);
      else item = encode_item(h, value);
      if (store.db()->Put(store.write_options(), db_key(dbkey, k.bytes, k.len), item).ok()) {
        n.total_items.fetch_add(1, std::memory_order_relaxed);
      } else {
        answer = "SERVER_ERROR out of memory storing object";
      }
    }
  }
  if (!c.noreply) reply(r, answer);
}

void do_delete(Store& store, const mc_command& c, quanta_response* r) {
  const mc_key& k = c.keys[0];
  const char* answer = "DELETED";
  {
    Store::Stripe stripe(store, k.bytes, k.len);
    std::string stored;
    ItemHeader h;
    leveldb::Slice data;
    char dbkey[MC_KEY_ROOM];
    if (!store.read(k.bytes, k.len, &stored, &h, &data)) {
      answer = "NOT_FOUND";
    } else if (!store.db()->Delete(store.write_options(), db_key(dbkey, k.bytes, k.len)).ok()) {
      answer = "SERVER_ERROR cannot delete";
    }
  }
  if (!c.noreply) reply(r, answer);
}

void do_arithmetic(Store& store, const mc_command& c, quanta_response* r) {
  const mc_key& k = c.keys[0];
  const char* error = nullptr;
  uint64_t value = 0;
  {
    Store::Stripe stripe(store, k.bytes, k.len);
    std::string stored;
    ItemHeader h;
    leveldb::Slice data;
    if (!store.read(k.bytes, k.len, &stored, &h, &data)) {
      error = "NOT_FOUND";
    } else {
      // memcached's rules: a decimal of at most 20 digits that fits 64 bits.
      bool ok = !data.empty() && data.size() <= 20;
      for (size_t i = 0; ok && i < data.size(); ++i) {
        const uint64_t d = static_cast<uint64_t>(data[i] - '0');
        if (d > 9 || value > (UINT64_MAX - d) / 10) ok = false;
        else value = value * 10 + d;
      }
      if (!ok) {
        error = "CLIENT_ERROR cannot increment or decrement non-numeric value";
      } else {
        // incr wraps at 2^64; decr stops at 0.
        value = c.verb == MC_INCR ? value + c.number : (value < c.number ? 0 : value - c.number);
        char text[24];
        const int len = std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(value));
        h = store.fresh_header(h.flags, h.expires_at);  // a new value: a new unique
        char dbkey[MC_KEY_ROOM];
        if (!store.db()
                 ->Put(store.write_options(), db_key(dbkey, k.bytes, k.len),
                       encode_item(h, leveldb::Slice(text, static_cast<size_t>(len))))
                 .ok()) {
          error = "SERVER_ERROR out of memory";
        }
      }
    }
  }
  if (c.noreply) return;
  if (error != nullptr) reply(r, error);
  else if (mc_reply_number(r, value) != 0) r->status = 1;
}

void do_touch(Store& store, Counters& n, const mc_command& c, quanta_response* r) {
  const mc_key& k = c.keys[0];
  n.cmd_touch.fetch_add(1, std::memory_order_relaxed);
  const char* answer = "TOUCHED";
  {
    Store::Stripe stripe(store, k.bytes, k.len);
    std::string stored;
    ItemHeader h;
    leveldb::Slice data;
    char dbkey[MC_KEY_ROOM];
    if (!store.read(k.bytes, k.len, &stored, &h, &data)) {
      answer = "NOT_FOUND";
    } else {
      // A new expiry, the same unique (memcached's touch leaves it).
      h.expires_at = expiry_of(c.exptime);
      if (!store.db()->Put(store.write_options(), db_key(dbkey, k.bytes, k.len), encode_item(h, data)).ok()) {
        answer = "SERVER_ERROR cannot touch";
      }
    }
  }
  if (!c.noreply) reply(r, answer);
}

void stat_line(quanta_response* r, const char* name, unsigned long long value) {
  char line[128];
  std::snprintf(line, sizeof line, "STAT %s %llu", name, value);
  reply(r, line);
}

void do_stats(Store& store, Counters& n, const mc_command& c, quanta_response* r) {
  if (c.stats_arg != nullptr) {
    if (mc_stats_arg_is(&c, "reset")) {
      reply(r, "RESET");
    } else if (mc_stats_arg_is(&c, "leveldb")) {
      // LevelDB's own view: files per level and the memory its tables and memtable hold.
      std::string v;
      for (int level = 0; level < 7; ++level) {
        char property[64], name[32];
        std::snprintf(property, sizeof property, "leveldb.num-files-at-level%d", level);
        std::snprintf(name, sizeof name, "files_at_level%d", level);
        if (store.db()->GetProperty(property, &v)) stat_line(r, name, std::strtoull(v.c_str(), nullptr, 10));
      }
      if (store.db()->GetProperty("leveldb.approximate-memory-usage", &v)) {
        stat_line(r, "approximate_memory_usage", std::strtoull(v.c_str(), nullptr, 10));
      }
      reply(r, "END");
    } else if (mc_stats_section_without_contents(&c)) {
      // memcached's slab allocator and connections: kv has none of them to show.
      reply(r, "END");
    } else {
      reply(r, "ERROR");
    }
    return;
  }
  const int64_t now = now_s();
  stat_line(r, "pid", static_cast<unsigned long long>(getpid()));
  stat_line(r, "uptime", static_cast<unsigned long long>(now - g_started));
  stat_line(r, "time", static_cast<unsigned long long>(now));
  reply(r, "STAT version 1.6.0-quanta-kv");  // one token, as clients split stat lines
  stat_line(r, "cmd_get", n.cmd_get.load());
  stat_line(r, "cmd_set", n.cmd_set.load());
  stat_line(r, "cmd_touch", n.cmd_touch.load());
  stat_line(r, "get_hits", n.get_hits.load());
  stat_line(r, "get_misses", n.get_misses.load());
  stat_line(r, "total_items", n.total_items.load());
  stat_line(r, "scans", n.scans.load());
  stat_line(r, "scanned_items", n.scanned_items.load());
  stat_line(r, "reclaimed", n.reclaimed.load());
  reply(r, "END");
}

// The long request: a LevelDB iterator from the start key on, over `count` live items in
// key order, digesting their values. Preemptible throughout: the iterator holds a
// snapshot of the tables it reads, not a lock.
void do_scan(Store& store, Counters& n, const mc_command& c, quanta_response* r) {
  const mc_key& k = c.keys[0];
  char dbkey[MC_KEY_ROOM];
  uint64_t seen = 0, digest = 0;
  {
    std::unique_ptr<leveldb::Iterator> it(store.db()->NewIterator(leveldb::ReadOptions()));
    for (it->Seek(db_key(dbkey, k.bytes, k.len)); it->Valid() && seen < c.number; it->Next()) {
      const leveldb::Slice key = it->key();
      if (key.empty() || key[0] != kItemPrefix) break;  // past the client's keys
      ItemHeader h;
      leveldb::Slice data;
      if (!decode_item(it->value(), &h, &data) || !store.live(h)) continue;
      uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a of the value
      for (size_t i = 0; i < data.size(); ++i) hash = (hash ^ static_cast<unsigned char>(data[i])) * 0x100000001b3ull;
      digest = digest * 31 + hash;
      ++seen;
    }
  }
  n.scans.fetch_add(1, std::memory_order_relaxed);
  n.scanned_items.fetch_add(seen, std::memory_order_relaxed);
  char line[64];
  std::snprintf(line, sizeof line, "SCANNED %llu %016llx", static_cast<unsigned long long>(seen),
                static_cast<unsigned long long>(digest));
  reply(r, line);
}

}  // namespace

void run_command(Store& store, Counters& counters, const mc_command& c, quanta_response* r) {
  switch (c.verb) {
    case MC_GET:
    case MC_GETS: do_get(store, counters, c, r); break;
    case MC_SET:
    case MC_ADD:
    case MC_REPLACE:
    case MC_APPEND:
    case MC_PREPEND:
    case MC_CAS: do_store(store, counters, c, r); break;
    case MC_DELETE: do_delete(store, c, r); break;
    case MC_INCR:
    case MC_DECR: do_arithmetic(store, c, r); break;
    case MC_TOUCH: do_touch(store, counters, c, r); break;
    case MC_FLUSH_ALL: {
      const bool ok = store.flush(c.exptime);
      if (!c.noreply) reply(r, ok ? "OK" : "SERVER_ERROR cannot write the flush record");
      break;
    }
    case MC_VERSION:
      // memcached's form, major.minor.micro first: libmemcached parses it (memcstat, memcping
      // fail on anything else) and may choose features by it; kv speaks memcached 1.6's protocol.
      reply(r, "VERSION 1.6.0-quanta-kv");
      break;  // and in stats
    case MC_STATS: do_stats(store, counters, c, r); break;
    case MC_VERBOSITY:
      if (!c.noreply) reply(r, "OK");
      break;
    case MC_SCAN: do_scan(store, counters, c, r); break;
    case MC_QUIT:  // the framer closes the connection: never a request
    case MC_VERB_COUNT: reply(r, "ERROR"); break;
  }
}

}  // namespace kv
