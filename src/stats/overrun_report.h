// One quantum the watchdog saw run far past its length (runtime/quantum_watchdog.h), as
// the run's report shows it.
#pragma once

#include <cstdint>
#include <string>

namespace quanta {

struct OverrunReport {
  int worker = 0;
  uint64_t request_id = 0;
  uint64_t elapsed_ns = 0;           // how long the quantum had run when it was reported
  uintptr_t pc = 0;                  // where its task was; 0: unknown
  std::string where;                 // the code object and symbol of pc ("" when unknown)
};

}  // namespace quanta
