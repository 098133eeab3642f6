// How kv lays out its items in LevelDB.
//
// Keys: every client key is stored with the prefix 'k', and kv's own records with 'm', so
// that no client key (memcached keys are 1-250 bytes of anything but spaces and control
// characters) can ever name a record of kv's, and a scan knows where the client's keys end.
//
// Values: a fixed header, then the client's bytes. The header carries what memcached keeps
// beside a value (flags, expiry, cas unique, when it was stored), so that one LevelDB Get answers a get or
// gets and one Put stores a command's whole effect. Little-endian, as written by memcpy
// on the x86-64 machines quanta runs on.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include <leveldb/slice.h>

namespace kv {

constexpr char kItemPrefix = 'k';
constexpr char kMetaPrefix = 'm';
// The flush record (kv_store.h): "m" "flush".
inline const char kFlushRecord[] = "mflush";
// Room for a LevelDB key: the prefix and a key of up to 250 bytes.
constexpr size_t MC_KEY_ROOM = 1 + 250;

struct ItemHeader {
  uint32_t flags = 0;
  int64_t expires_at = 0;  // unix seconds; 0: never; -1: expired when stored
  uint64_t cas = 0;        // also its place in time for an immediate flush_all (kv_store.h)
  int64_t stored_at = 0;   // unix seconds, for a delayed flush_all (kv_store.h)
};

constexpr size_t kHeaderBytes = 4 + 8 + 8 + 8;

// The LevelDB key of a client key: the prefix, then its bytes. `out` has MC_KEY_ROOM bytes.
inline leveldb::Slice db_key(char* out, const char* key, uint32_t len) {
  out[0] = kItemPrefix;
  std::memcpy(out + 1, key, len);
  return leveldb::Slice(out, len + 1);
}

inline void encode_header(const ItemHeader& h, char* out) {
  std::memcpy(out, &h.flags, 4);
  std::memcpy(out + 4, &h.expires_at, 8);
  std::memcpy(out + 12, &h.cas, 8);
  std::memcpy(out + 20, &h.stored_at, 8);
}

// A whole stored value: the header, then `parts` of the client's bytes in order.
inline std::string encode_item(const ItemHeader& h, leveldb::Slice a, leveldb::Slice b = leveldb::Slice()) {
  std::string out(kHeaderBytes + a.size() + b.size(), '\0');
  encode_header(h, out.data());
  if (!a.empty()) std::memcpy(out.data() + kHeaderBytes, a.data(), a.size());
  if (!b.empty()) std::memcpy(out.data() + kHeaderBytes + a.size(), b.data(), b.size());
  return out;
}

// Splits a stored value into its header and the client's bytes. False for a value too
// short to hold a header (a database kv did not write): treated as absent.
inline bool decode_item(leveldb::Slice stored, ItemHeader* h, leveldb::Slice* data) {
  if (stored.size() < kHeaderBytes) return false;
  std::memcpy(&h->flags, stored.data(), 4);
  std::memcpy(&h->expires_at, stored.data() + 4, 8);
  std::memcpy(&h->cas, stored.data() + 12, 8);
  std::memcpy(&h->stored_at, stored.data() + 20, 8);
  *data = leveldb::Slice(stored.data() + kHeaderBytes, stored.size() - kHeaderBytes);
  return true;
}

}  // namespace kv

namespace kv {

// The preloaded and generated keys, as kvcache names them: key:0000000000 ...
inline uint32_t generated_key(char* out, uint64_t index) {
  return static_cast<uint32_t>(std::snprintf(out, 32, "key:%010llu", static_cast<unsigned long long>(index)));
}

// A generated value's bytes are a function of its key's index, so any reader can check
// them (the same as kvcache's).
inline void generated_value(char* out, uint64_t index, uint64_t len) {
  for (uint64_t i = 0; i < len; ++i) out[i] = static_cast<char>('a' + (index + i) % 26);
}

}  // namespace kv
