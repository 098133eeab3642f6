#include "kv_store.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <memory>
#include <sys/time.h>

#include <leveldb/cache.h>
#include <leveldb/filter_policy.h>
#include <leveldb/write_batch.h>

#include <quanta/probe.h>

namespace kv {

int64_t now_s() { return static_cast<int64_t>(std::time(nullptr)); }

int64_t expiry_of(int64_t exptime) {
  if (exptime == 0) return 0;
  if (exptime < 0) return -1;
  if (exptime <= 60 * 60 * 24 * 30) return now_s() + exptime;
  return exptime;
}

namespace {

uint64_t now_us() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  return static_cast<uint64_t>(tv.tv_sec) * 1000000u + static_cast<uint64_t>(tv.tv_usec);
}

uint64_t hash_bytes(const char* p, uint32_t n) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (uint32_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

}  // namespace

bool Store::open(const Config& config) {
  if (config.db.empty()) {
    std::fprintf(stderr, "kv: db=PATH is required in --app-config to serve (the LevelDB directory)\n");
    return false;
  }
  leveldb::Options options;
  options.create_if_missing = config.create;
  cache_ = leveldb::NewLRUCache(config.cache_mb << 20);
  options.block_cache = cache_;
  // Bloom filters: a get of a missing key reads no data block.
  filter_ = leveldb::NewBloomFilterPolicy(10);
  options.filter_policy = filter_;
  leveldb::Status s = leveldb::DB::Open(options, config.db, &db_);
  if (!s.ok()) {
    std::fprintf(stderr, "kv: cannot open the database db=%s: %s%s\n", config.db.c_str(), s.ToString().c_str(),
                 config.create ? "" : " (create=0: it must exist)");
    db_ = nullptr;
    close();
    return false;
  }
  write_options_.sync = config.sync;

  // The flush record: "<flush_cas> <flushed_before> <flush_at>".
  std::string record;
  s = db_->Get(leveldb::ReadOptions(), kFlushRecord, &record);
  if (s.ok()) {
    unsigned long long cas = 0;
    long long before = 0, at = 0;
    if (std::sscanf(record.c_str(), "%llu %lld %lld", &cas, &before, &at) == 3) {
      flush_cas_.store(cas);
      flushed_before_.store(before);
      flush_at_.store(at);
    }
  }
  // Uniques start at the time in microseconds: above every unique of an earlier run unless
  // it stored more than a million items a second on average, and without writing a counter
  // to the database on every store. A unique a flush record names is above too.
  uint64_t start = now_us();
  if (start <= flush_cas_.load()) start = flush_cas_.load() + 1;
  next_cas_.store(start);

  if (config.keys > 0 && config.preload) {
    char key[32], dbkey[40];
    std::string value(config.value_bytes, '\0');
    leveldb::WriteBatch batch;
    for (uint64_t i = 0; i < config.keys; ++i) {
      const uint32_t len = generated_key(key, i);
      generated_value(value.data(), i, config.value_bytes);
      const ItemHeader h = fresh_header(0, 0);
      batch.Put(db_key(dbkey, key, len), encode_item(h, value));
      if (batch.ApproximateSize() > (4u << 20) || i + 1 == config.keys) {
        s = db_->Write(write_options_, &batch);
        if (!s.ok()) {
          std::fprintf(stderr, "kv: preloading keys=%llu into %s failed: %s\n",
                       static_cast<unsigned long long>(config.keys), config.db.c_str(), s.ToString().c_str());
          close();
          return false;
        }
        batch.Clear();
      }
    }
  }
  return true;
}

void Store::close() {
  delete db_;  // waits for LevelDB's background compaction, closes its files
  db_ = nullptr;
  delete cache_;
  cache_ = nullptr;
  delete filter_;
  filter_ = nullptr;
}

ItemHeader Store::fresh_header(uint32_t flags, int64_t expires_at) {
  ItemHeader h;
  h.flags = flags;
  h.expires_at = expires_at;
  h.cas = next_cas();
  h.stored_at = now_s();
  return h;
}

bool Store::live(const ItemHeader& h) const {
  if (h.cas < flush_cas_.load(std::memory_order_relaxed)) return false;
  const int64_t now = now_s();
  if (h.stored_at < flushed_before_.load(std::memory_order_relaxed)) return false;
  const int64_t at = flush_at_.load(std::memory_order_relaxed);
  if (at != 0 && now >= at && h.stored_at < at) return false;
  return h.expires_at == 0 || (h.expires_at > 0 && now < h.expires_at);
}

bool Store::write_flush_record() {
  char record[96];
  std::snprintf(record, sizeof record, "%" PRIu64 " %" PRId64 " %" PRId64, flush_cas_.load(), flushed_before_.load(),
                flush_at_.load());
  return db_->Put(write_options_, kFlushRecord, record).ok();
}

bool Store::flush(int64_t delay_exptime) {
  // With preemption disabled: the record's Put is a write like any other (kv_store.h).
  quanta_preempt_disable();
  bool ok;
  {
    std::lock_guard<std::mutex> lock(flush_mutex_);
    const int64_t pending = flush_at_.load();
    // A delayed flush whose time has come stays in force whatever comes next.
    if (pending != 0 && now_s() >= pending && pending > flushed_before_.load()) flushed_before_.store(pending);
    if (delay_exptime > 0) {
      flush_at_.store(expiry_of(delay_exptime));
    } else {
      // Everything stored so far: a pending delayed flush has nothing left to do.
      flush_cas_.store(next_cas());
      flush_at_.store(0);
    }
    ok = write_flush_record();
  }
  quanta_preempt_enable();
  return ok;
}

bool Store::read(const char* key, uint32_t len, std::string* stored, ItemHeader* h, leveldb::Slice* data,
                 bool* dead) {
  char dbkey[MC_KEY_ROOM];
  if (dead != nullptr) *dead = false;
  if (!db_->Get(leveldb::ReadOptions(), db_key(dbkey, key, len), stored).ok()) return false;
  if (!decode_item(*stored, h, data)) return false;
  if (live(*h)) return true;
  if (dead != nullptr) *dead = true;
  return false;
}

bool Store::reclaim(const char* key, uint32_t len, uint64_t cas) {
  const Stripe stripe(*this, key, len);
  char dbkey[MC_KEY_ROOM];
  const leveldb::Slice k = db_key(dbkey, key, len);
  std::string stored;
  ItemHeader h;
  leveldb::Slice data;
  // Under the stripe, the item may have been written again since the get read it.
  if (!db_->Get(leveldb::ReadOptions(), k, &stored).ok() || !decode_item(stored, &h, &data)) return false;
  if (h.cas != cas || live(h)) return false;
  return db_->Delete(write_options_, k).ok();
}

Store::Stripe::Stripe(Store& store, const char* key, uint32_t len)
    : mutex_(store.stripes_[hash_bytes(key, len) % kStripes]) {
  quanta_preempt_disable();
  mutex_.lock();
}

Store::Stripe::~Stripe() {
  mutex_.unlock();
  quanta_preempt_enable();
}

}  // namespace kv
