// The per-object probe records (include/quanta/probe_record.h) of a binary on disk: which
// of its objects the quanta pass instrumented, in which mode, with how many probes.
// `quanta probes` prints them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace quanta {

struct ProbeRecord {
  std::string module;  // the tail of the object's source file name
  std::string mode;    // "clock", "flag", "counter", or "locks" (lock bracketing only)
  uint32_t probes = 0;
  uint32_t lock_sites = 0;
  uint32_t functions = 0;
  uint32_t twins = 0;  // flag mode: clock twins of its functions, not counted above
};

// Reads the records from section "quanta_probes" of a 64-bit little-endian ELF file
// (an executable, a shared object or a relocatable .o), in file order. A file without the
// section has no instrumented objects: empty result. Throws std::invalid_argument, with a
// message naming `path` and the problem, for a file that cannot be read, is not such an
// ELF file, is cut short, or holds something other than version-1 records there.
std::vector<ProbeRecord> read_probe_records(const std::string& path);

// Where the sections named `name` of an ELF file sit, as link-time addresses (a loaded
// shared object adds its load base): [begin, end) each, empty sections left out. Throws
// like read_probe_records. The app loader uses it to find an object's quanta_text.
std::vector<std::pair<uint64_t, uint64_t>> read_section_ranges(const std::string& path, const char* name);

}  // namespace quanta
