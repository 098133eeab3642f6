#include "probes_command.h"

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/probe_records.h"

namespace quanta {
namespace {

void print_text(const std::string& path, const std::vector<ProbeRecord>& records) {
  if (records.empty()) {
    std::printf("%s: no instrumented objects (no quanta probe records)\n", path.c_str());
    return;
  }
  // Module last: it is the one column of unbounded width.
  // twins: flag mode's clock twins, which `probes` and `functions` leave out.
  std::printf("%-8s %8s %10s %9s %5s  %s\n", "mode", "probes", "lock_sites", "functions", "twins", "module");
  uint64_t probes = 0, lock_sites = 0, functions = 0, twins = 0;
  for (const ProbeRecord& r : records) {
    std::printf("%-8s %8u %10u %9u %5u  %s\n", r.mode.c_str(), r.probes, r.lock_sites, r.functions, r.twins,
                r.module.c_str());
    probes += r.probes;
    lock_sites += r.lock_sites;
    functions += r.functions;
    twins += r.twins;
  }
  std::printf("%-8s %8llu %10llu %9llu %5llu  %zu instrumented object%s in %s\n", "total",
              static_cast<unsigned long long>(probes), static_cast<unsigned long long>(lock_sites),
              static_cast<unsigned long long>(functions), static_cast<unsigned long long>(twins), records.size(),
              records.size() == 1 ? "" : "s", path.c_str());
}

void print_json(const std::string& path, const std::vector<ProbeRecord>& records) {
  nlohmann::json objects = nlohmann::json::array();
  uint64_t total = 0;
  for (const ProbeRecord& r : records) {
    objects.push_back({{"module", r.module},
                       {"mode", r.mode},
                       {"probes", r.probes},
                       {"lock_sites", r.lock_sites},
                       {"functions", r.functions},
                       {"twins", r.twins}});
    total += r.probes;
  }
  const nlohmann::json out{{"path", path}, {"objects", objects}, {"total_probes", total}};
  std::cout << out.dump(2) << '\n';
}

}  // namespace

void add_probes_options(CLI::App& cmd, ProbesOptions& o) {
  cmd.add_option("binary", o.binary, "ELF executable, shared object or .o to read")->required();
  cmd.add_option("--format", o.format, "text (a table) or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
}

int probes_command(const ProbesOptions& o) {
  const std::vector<ProbeRecord> records = read_probe_records(o.binary);
  if (o.format == "json") print_json(o.binary, records);
  else print_text(o.binary, records);
  return 0;
}

}  // namespace quanta
