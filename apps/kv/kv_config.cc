#include "kv_config.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

}  // namespace

bool parse_config(const char* text, Config* out) {
  const std::string all = text != nullptr ? text : "";
  size_t start = 0;
  while (start <= all.size()) {
    size_t end = all.find(',', start);
    if (end == std::string::npos) end = all.size();
    const std::string part = all.substr(start, end - start);
    start = end + 1;
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    const std::string name = part.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : part.substr(eq + 1);
    bool ok = eq != std::string::npos;
    const char* expected = "";
    if (!ok) {
      expected = "name=value";
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
    } else if (name == "zipf") {
      expected = "a skew in [0, 10] (0: uniform popularity)";
      ok = parse_share(value, &out->zipf) && out->zipf <= 10;
    } else if (name == "get" || name == "set" || name == "scan") {
      expected = "a share >= 0";
      ok = parse_share(value, name == "get" ? &out->get_share : name == "set" ? &out->set_share : &out->scan_share);
    } else {
      std::fprintf(stderr,
                   "kv: unknown setting '%s' in --app-config (known: db, cache_mb, sync, create, keys, "
                   "value_bytes, scan_count, zipf, get, set, scan)\n",
                   name.c_str());
      return false;
    }
    if (!ok) {
      std::fprintf(stderr, "kv: bad setting '%s' in --app-config: %s expects %s\n", part.c_str(), name.c_str(),
                   expected);
      return false;
    }
  }
  if (out->get_share + out->set_share + out->scan_share <= 0) {
    std::fprintf(stderr, "kv: the shares of get, set and scan in --app-config are all 0\n");
    return false;
  }
  return true;
}

}  // namespace kv
