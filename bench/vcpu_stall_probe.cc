// How often, and for how long, this machine takes a CPU away from a thread that never
// blocks: one pinned spinner per CPU reads the cycle counter back to back and counts the
// gaps. On bare metal with isolated cores gaps stay near 0; in a VM the host's scheduling
// shows up here, and it is the floor under every tail latency quanta measures.
// Prints JSON: per CPU, gaps above 1 us / 10 us / 100 us / 1 ms and the largest; with
// --trace, also every gap above 1 us as [start_us, length_us] from the start of the spin,
// which `quanta sim --stalls FILE` replays to put this machine's stalls into a simulation.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/tsc.h"
#include "runtime/cpu_layout.h"

namespace {

struct Gaps {
  uint64_t above_1us = 0, above_10us = 0, above_100us = 0, above_1ms = 0;
  uint64_t max_cycles = 0;
  std::vector<std::pair<uint64_t, uint64_t>> trace;  // [start, length] in cycles from the spin's start
};

// Room for every gap the trace keeps, reserved up front: the spin loop must not allocate.
constexpr std::size_t kTraceCapacity = 1 << 20;

Gaps spin(uint64_t duration_cycles, bool keep_trace) {
  Gaps g;
  if (keep_trace) g.trace.reserve(kTraceCapacity);
  const uint64_t c1us = quanta::ns_to_cycles(1e3);
  uint64_t last = quanta::read_tsc();
  const uint64_t begin = last;
  const uint64_t end = last + duration_cycles;
  while (last < end) {
    const uint64_t now = quanta::read_tsc();
    const uint64_t gap = now - last;
    if (gap > c1us && keep_trace && g.trace.size() < kTraceCapacity) g.trace.emplace_back(last - begin, gap);
    last = now;
    if (gap <= c1us) continue;
    ++g.above_1us;
    if (gap > 10 * c1us) ++g.above_10us;
    if (gap > 100 * c1us) ++g.above_100us;
    if (gap > 1000 * c1us) ++g.above_1ms;
    if (gap > g.max_cycles) g.max_cycles = gap;
  }
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 5;
  bool keep_trace = false;
  bool seconds_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf(
          "usage: quanta-bench-stalls [SECONDS] [--trace]\n"
          "  spin on every CPU for SECONDS (default 5) and count the gaps; --trace also lists\n"
          "  every gap above 1 us ([start_us, length_us]) for quanta sim --stalls\n");
      return 0;
    }
    if (arg == "--trace") {
      keep_trace = true;
      continue;
    }
    char* end = nullptr;
    seconds = std::strtod(argv[i], &end);
    if (seconds_given || end == argv[i] || *end != '\0' || !(seconds > 0) || seconds > 1e6) {
      std::fprintf(stderr, "quanta-bench-stalls: expected SECONDS (a positive number) or --trace, got '%s'\n", argv[i]);
      return 2;
    }
    seconds_given = true;
  }
  const std::vector<int> cpus = quanta::allowed_cpus();
  const uint64_t duration = quanta::ns_to_cycles(seconds * 1e9);
  std::vector<Gaps> results(cpus.size());
  {
    std::vector<std::unique_ptr<quanta::PinnedThread>> threads;
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      threads.push_back(std::make_unique<quanta::PinnedThread>(cpus[i], [&, i] { results[i] = spin(duration, keep_trace); }));
    }
  }
  nlohmann::json out{{"seconds", seconds}, {"cpus", nlohmann::json::array()}};
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    const Gaps& g = results[i];
    nlohmann::json cpu{{"cpu", cpus[i]},
                       {"gaps_over_1us_per_s", g.above_1us / seconds},
                       {"gaps_over_10us_per_s", g.above_10us / seconds},
                       {"gaps_over_100us_per_s", g.above_100us / seconds},
                       {"gaps_over_1ms_per_s", g.above_1ms / seconds},
                       {"max_gap_us", quanta::cycles_to_ns(g.max_cycles) / 1e3}};
    if (keep_trace) {
      nlohmann::json trace = nlohmann::json::array();
      for (const auto& [start, length] : g.trace) {
        trace.push_back({quanta::cycles_to_ns(start) / 1e3, quanta::cycles_to_ns(length) / 1e3});
      }
      cpu["trace_us"] = std::move(trace);
    }
    out["cpus"].push_back(std::move(cpu));
  }
  std::cout << out.dump(2) << '\n';
  return 0;
}
