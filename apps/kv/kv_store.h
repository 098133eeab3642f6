// The database under kv: LevelDB opened once per server, the locks that make a command's
// read-modify-write atomic, cas uniques, and flush_all.
//
// Why every write runs under a stripe lock with preemption disabled:
//  - Atomicity. cas, incr/decr, append/prepend, add/replace and touch read an item and write
//    it back. LevelDB has no transactions, so two commands on one key must not interleave:
//    each takes its key's stripe (a std::mutex chosen by the key's hash) around its Get and
//    Put. Plain set and delete take it too, or a set could land between a cas's read and
//    its write and be overwritten by a value whose unique check it had already passed.
//  - No deadlock inside LevelDB. DB::Write queues writers: the first is the leader and
//    writes the log with LevelDB's mutex released; the others wait on a condition variable,
//    blocking their kernel thread. Were a leader task preempted in its log write, a task of
//    the same worker that entered Write next would block that worker's thread waiting for a
//    leader that only that thread can run. With preemption disabled from before Write to
//    after it, a task in Write is never switched out, so whoever it waits for is running on
//    another thread and finishes.
//  - No preempted lock holder. A task holding a stripe is never switched out, so no other
//    task of its worker can block on a stripe whose holder waits for that worker.
// The cost: a write (and its fsync with sync=1) is not preemptible. Reads (get, gets, scan)
// take no stripe and run preemptible, save LevelDB's own mutex sections, which the pass
// brackets (docs/pass.md: locks).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include <leveldb/db.h>

#include "kv_config.h"
#include "kv_item.h"

namespace kv {

class Store {
 public:
  // Opens (or creates, with create=1) the database named by `config.db`; preloads
  // config.keys keys. False with a message on stderr on failure.
  bool open(const Config& config);
  void close();
  bool is_open() const { return db_ != nullptr; }
  leveldb::DB* db() { return db_; }
  const leveldb::WriteOptions& write_options() const { return write_options_; }

  // A fresh cas unique. Uniques grow through a run and across restarts (see open()).
  uint64_t next_cas() { return next_cas_.fetch_add(1, std::memory_order_relaxed); }
  // A header for an item stored now: a fresh unique and the time.
  ItemHeader fresh_header(uint32_t flags, int64_t expires_at);

  // Whether an item with this header is still there: not expired, not flushed.
  bool live(const ItemHeader& h) const;
  // flush_all [delay]: every item stored before now (no delay) or before the delay's time
  // becomes invalid, without walking the database:
  //  - at once: the next unique is recorded; an item with a smaller one was stored before.
  //  - delayed: the time T is recorded; from T on, an item stored (in whole seconds) before
  //    T is invalid, as memcached judges it (an item stored in the second T-1 is flushed).
  //    A new delayed flush replaces a pending one; one whose time has come stays in force
  //    (memcached would let its items back until the new time).
  // Persisted in kFlushRecord, so a restart keeps flushed items invisible. False if the
  // record could not be written (the flush is in force until a restart).
  bool flush(int64_t delay_exptime);

  // Reads `key`'s live item: true with its header and bytes in `stored`/`data`. False when
  // there is none; then `*dead` (if given) says whether an expired or flushed item is there.
  bool read(const char* key, uint32_t len, std::string* stored, ItemHeader* h, leveldb::Slice* data,
            bool* dead = nullptr);
  // Deletes `key`'s item if it is still the dead one with unique `cas` (a get found it so):
  // memcached frees an expired item when a fetch finds it, and LevelDB keeps whatever is not
  // deleted. Takes the key's stripe: not for callers that hold it. True if it deleted.
  bool reclaim(const char* key, uint32_t len, uint64_t cas);

  // The key's stripe, held with preemption disabled (see above). Scoped.
  class Stripe {
   public:
    Stripe(Store& store, const char* key, uint32_t len);
    ~Stripe();
    Stripe(const Stripe&) = delete;
    Stripe& operator=(const Stripe&) = delete;

   private:
    std::mutex& mutex_;
  };

 private:
  static constexpr size_t kStripes = 1024;
  bool write_flush_record();

  leveldb::DB* db_ = nullptr;
  const leveldb::FilterPolicy* filter_ = nullptr;
  leveldb::Cache* cache_ = nullptr;
  leveldb::WriteOptions write_options_;
  std::atomic<uint64_t> next_cas_{1};
  // Items with a unique below flush_cas_ were stored before the last immediate flush_all.
  std::atomic<uint64_t> flush_cas_{0};
  // Items stored (unix seconds) before flushed_before_ were flushed by a delayed flush_all
  // whose time has come; flush_at_ is the latest delayed one's time (0: none).
  std::atomic<int64_t> flushed_before_{0};
  std::atomic<int64_t> flush_at_{0};
  std::mutex flush_mutex_;
  std::mutex stripes_[kStripes];
};

// memcached's exptime: 0 never, negative already expired, up to 30 days relative to now,
// else a unix time.
int64_t expiry_of(int64_t exptime);
int64_t now_s();

}  // namespace kv
