// kv's configuration (--app-config): comma-separated key=value settings.
#pragma once

#include <cstdint>
#include <string>

namespace kv {

struct Config {
  std::string db;              // db=PATH: the LevelDB directory (required to serve)
  uint64_t cache_mb = 8;       // cache_mb=M: LevelDB's block cache (its own default, 8 MB)
  bool sync = false;           // sync=0|1: every write waits for the log's fsync
  bool create = true;          // create=0|1: create the database if it is missing
  uint64_t keys = 0;           // keys=N: preload key:0000000000 ... (and generate requests over them)
  bool preload = true;         // preload=0|1: write the keys at start (0: the database has them already)
  uint64_t value_bytes = 64;   // value_bytes=B: the preloaded and generated values' size
  uint64_t scan_count = 5000;  // scan_count=C: items a generated scan walks
  bool scan_from_first = false;  // scan_start=first|random: where a generated scan starts
  double zipf = 0;             // zipf=S: generated keys' popularity zipf(S) (0.99: YCSB's); 0: uniform
  // get=S,set=S,scan=S,delete=S: the generator's shares of each class
  double get_share = 1, set_share = 0, scan_share = 0, delete_share = 0;
};

// mix=NAME: a request mix of the papers, by name; it sets the shares (and, where the paper
// fixes them, keys and scan_count), and settings given beside it override it.
struct Mix {
  const char* name;
  double get, set, scan, del;
  uint64_t keys, scan_count;  // 0: not set by the mix
  bool scan_from_first;
};
extern const Mix kMixes[];
extern const unsigned kMixCount;

// Parses `text` into `out` (which starts with the defaults): mix= first, then every other
// setting in order. On a bad setting prints a message naming it to stderr and returns false.
bool parse_config(const char* text, Config* out);

}  // namespace kv
