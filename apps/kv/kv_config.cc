#include "kv_config.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "memcached_text.h"

namespace kv {
namespace {

bool parse_u64(const std::string& text, uint64_t lo, uint64_t hi, uint64_t* out) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_share(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !(v >= 0 && v <= 1e9)) return false;
  *out = v;
  return true;
}

bool parse_bool(const std::string& text, bool* out) {
  if (text != "0" && text != "1") return false;
  *out = text == "1";
  return true;
}

std::vector<std::string> split_settings(const char* text) {
  const std::string all = text != nullptr ? text : "";
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= all.size()) {
    size_t end = all.find(',', start);
    if (end == std::string::npos) end = all.size();
    if (end > start) parts.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// Applies mix=NAME; false (with a message) for an unknown name.
bool apply_mix(const std::string& name, Config* out) {
  for (unsigned i = 0; i < kMixCount; ++i) {
    const Mix& m = kMixes[i];
    if (name != m.name) continue;
    out->get_share = m.get;
    out->set_share = m.set;
    out->scan_share = m.scan;
    out->delete_share = m.del;
    if (m.keys != 0) out->keys = m.keys;
    if (m.scan_count != 0) out->scan_count = m.scan_count;
    out->scan_from_first = m.scan_from_first;
    return true;
  }
  std::string known;
  for (unsigned i = 0; i < kMixCount; ++i) known += std::string(i ? ", " : "") + kMixes[i].name;
  std::fprintf(stderr, "kv: bad setting 'mix=%s' in --app-config: mix expects one of %s\n", name.c_str(),
               known.c_str());
  return false;
}

}  // namespace

// The request mixes of the papers quanta reproduces. Tiny Quanta (ASPLOS '24, section 5.1)
// serves RocksDB GETs with 0.5% or 50% SCANs; Concord (SOSP '23, section 5.3) serves
// LevelDB with 15,000 keys, 50% GETs and 50% SCANs of the whole database, and a mix from
// Meta's ZippyDB traces. The papers do not give Tiny Quanta's scan length, so tq and
// tq-scan50 keep scan_count.
const Mix kMixes[] = {
    // name, shares of get, set, scan, delete; keys, scan_count, scans from the first key
    {"tq", 0.995, 0, 0.005, 0, 0, 0, false},              // 0.5% SCAN
    {"tq-scan50", 0.5, 0, 0.5, 0, 0, 0, false},           // 50% SCAN
    {"concord", 0.5, 0, 0.5, 0, 15000, 15000, true},      // 50% SCAN of all 15,000 keys
    {"zippydb", 0.78, 0.13, 0.03, 0.06, 0, 0, false},     // PUTs are sets
};
const unsigned kMixCount = sizeof(kMixes) / sizeof(kMixes[0]);

bool parse_config(const char* text, Config* out) {
  const std::vector<std::string> parts = split_settings(text);
  for (const std::string& part : parts) {
    if (part.rfind("mix=", 0) == 0 && !apply_mix(part.substr(4), out)) return false;
  }
  for (const std::string& part : parts) {
    const size_t eq = part.find('=');
    const std::string name = part.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : part.substr(eq + 1);
    bool ok = eq != std::string::npos;
    const char* expected = "";
    if (!ok) {
      expected = "name=value";
    } else if (name == "mix") {
      continue;  // applied above
    } else if (name == "db") {
      expected = "a directory path";
      ok = !value.empty();
      out->db = value;
    } else if (name == "cache_mb") {
      expected = "0..65536 (MB)";
      ok = parse_u64(value, 0, 65536, &out->cache_mb);
    } else if (name == "sync") {
      expected = "0 or 1";
      ok = parse_bool(value, &out->sync);
    } else if (name == "preload") {
      expected = "0 or 1";
      ok = parse_bool(value, &out->preload);
    } else if (name == "create") {
      expected = "0 or 1";
      ok = parse_bool(value, &out->create);
    } else if (name == "keys") {
      expected = "0..2^28";
      ok = parse_u64(value, 0, 1ull << 28, &out->keys);
    } else if (name == "value_bytes") {
      expected = "0..4096";
      ok = parse_u64(value, 0, 4096, &out->value_bytes);
    } else if (name == "scan_count") {
      expected = "1..1000000";
      ok = parse_u64(value, 1, MC_MAX_SCAN_COUNT, &out->scan_count);
    } else if (name == "scan_start") {
      expected = "first or random";
      ok = value == "first" || value == "random";
      out->scan_from_first = value == "first";
    } else if (name == "zipf") {
      expected = "a skew in [0, 10] (0: uniform popularity)";
      ok = parse_share(value, &out->zipf) && out->zipf <= 10;
    } else if (name == "get" || name == "set" || name == "scan" || name == "delete") {
      expected = "a share >= 0";
      ok = parse_share(value, name == "get"    ? &out->get_share
                              : name == "set"  ? &out->set_share
                              : name == "scan" ? &out->scan_share
                                               : &out->delete_share);
    } else {
      std::fprintf(stderr,
                   "kv: unknown setting '%s' in --app-config (known: db, cache_mb, sync, create, keys, preload, "
                   "value_bytes, scan_count, scan_start, zipf, get, set, scan, delete, mix)\n",
                   name.c_str());
      return false;
    }
    if (!ok) {
      std::fprintf(stderr, "kv: bad setting '%s' in --app-config: %s expects %s\n", part.c_str(), name.c_str(),
                   expected);
      return false;
    }
  }
  if (out->get_share + out->set_share + out->scan_share + out->delete_share <= 0) {
    std::fprintf(stderr, "kv: the shares of get, set, scan and delete in --app-config are all 0\n");
    return false;
  }
  return true;
}

}  // namespace kv
