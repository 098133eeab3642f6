#include "core/tsc.h"

#include <time.h>

#include "quanta/fn.h"

namespace quanta {
namespace {

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

double measure_tsc_per_ns() {
  // Take the best of a few short windows: a window that the kernel interrupted between the
  // two clock reads overstates the elapsed ns by little relative to 5 ms.
  double best = 0;
  for (int i = 0; i < 4; ++i) {
    const uint64_t ns0 = monotonic_ns();
    const uint64_t t0 = read_tsc();
    while (monotonic_ns() - ns0 < 5'000'000) {
    }
    const uint64_t t1 = read_tsc();
    const uint64_t ns1 = monotonic_ns();
    const double rate = static_cast<double>(t1 - t0) / static_cast<double>(ns1 - ns0);
    if (rate > best) best = rate;
  }
  return best;
}

}  // namespace

double tsc_per_ns() {
  static const double rate = measure_tsc_per_ns();
  return rate;
}

}  // namespace quanta

extern "C" double quanta_tsc_per_us(void) { return quanta::tsc_per_ns() * 1000.0; }
