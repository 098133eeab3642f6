// What the dispatcher watches the workers for, at every loop iteration whatever its state:
// quanta to end (the monitor of flag, signal and hybrid) and quanta that run far too long
// (the watchdog). Either may be absent.
#pragma once

#include <cstdint>

#include "runtime/quantum_monitor.h"
#include "runtime/quantum_watchdog.h"

namespace quanta {

struct WorkerWatch {
  QuantumMonitor* monitor = nullptr;
  QuantumWatchdog* watchdog = nullptr;

  // Whether some quanta are ended from outside: the dispatcher must then stay awake while
  // any request runs.
  bool ends_quanta() const { return monitor != nullptr; }
  void poll(uint64_t now_tsc) {
    if (monitor != nullptr) monitor->poll(now_tsc);
    if (watchdog != nullptr) watchdog->poll(now_tsc);
  }
};

}  // namespace quanta
