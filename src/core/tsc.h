// Cycle-counter time. Inside the runtime every time is TSC cycles (uint64_t); this file
// converts at the edges (options in, reports out).
#pragma once

#include <cstdint>

#include "quanta/probe.h"

namespace quanta {

inline uint64_t read_tsc() { return quanta_read_tsc(); }

// Ticks per nanosecond, measured once against CLOCK_MONOTONIC (about 20 ms the first time).
double tsc_per_ns();

inline uint64_t ns_to_cycles(double ns) { return static_cast<uint64_t>(ns * tsc_per_ns() + 0.5); }
inline double cycles_to_ns(uint64_t cycles) { return static_cast<double>(cycles) / tsc_per_ns(); }

inline void cpu_relax() { __builtin_ia32_pause(); }

}  // namespace quanta
