// How often, and for how long, this machine takes a CPU away from a thread that never
// blocks: one pinned spinner per CPU reads the cycle counter back to back and counts the
// gaps. On bare metal with isolated cores gaps stay near 0; in a VM the host's scheduling
// shows up here, and it is the floor under every tail latency quanta measures.
// Prints JSON: per CPU, gaps above 1 us / 10 us / 100 us / 1 ms and the largest.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/tsc.h"
#include "runtime/cpu_layout.h"

namespace {

struct Gaps {
  uint64_t above_1us = 0, above_10us = 0, above_100us = 0, above_1ms = 0;
  uint64_t max_cycles = 0;
};

Gaps spin(uint64_t duration_cycles) {
  Gaps g;
  const uint64_t c1us = quanta::ns_to_cycles(1e3);
  uint64_t last = quanta::read_tsc();
  const uint64_t end = last + duration_cycles;
  while (last < end) {
    const uint64_t now = quanta::read_tsc();
    const uint64_t gap = now - last;
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
  if (argc > 1) {
    const std::string arg = argv[1];
    if (arg == "--help" || arg == "-h") {
      std::printf("usage: quanta-bench-stalls [SECONDS]   (default 5) spin on every CPU and count gaps\n");
      return 0;
    }
    char* end = nullptr;
    seconds = std::strtod(argv[1], &end);
    if (end == argv[1] || *end != '\0' || seconds <= 0) {
      std::fprintf(stderr, "quanta-bench-stalls: SECONDS must be a positive number, got '%s'\n", argv[1]);
      return 2;
    }
  }
  const std::vector<int> cpus = quanta::allowed_cpus();
  const uint64_t duration = quanta::ns_to_cycles(seconds * 1e9);
  std::vector<Gaps> results(cpus.size());
  {
    std::vector<std::unique_ptr<quanta::PinnedThread>> threads;
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      threads.push_back(std::make_unique<quanta::PinnedThread>(cpus[i], [&, i] { results[i] = spin(duration); }));
    }
  }
  nlohmann::json out{{"seconds", seconds}, {"cpus", nlohmann::json::array()}};
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    const Gaps& g = results[i];
    out["cpus"].push_back({{"cpu", cpus[i]},
                           {"gaps_over_1us_per_s", g.above_1us / seconds},
                           {"gaps_over_10us_per_s", g.above_10us / seconds},
                           {"gaps_over_100us_per_s", g.above_100us / seconds},
                           {"gaps_over_1ms_per_s", g.above_1ms / seconds},
                           {"max_gap_us", quanta::cycles_to_ns(g.max_cycles) / 1e3}});
  }
  std::cout << out.dump(2) << '\n';
  return 0;
}
