// What travels from the dispatcher to a worker for one request: 32 bytes, so two fit a
// cache line.
#pragma once

#include <cstdint>

namespace quanta {

struct RequestMsg {
  uint64_t id;
  uint64_t arrival_tsc;   // intended arrival: latency counts from here, even if dispatch was late
  uint32_t service_ns;    // nominal service time, for slowdown (0: unknown)
  uint16_t class_index;
  uint16_t flags;
  uint64_t payload;       // 8 bytes handed to the handler (synthetic app: service cycles)
};

enum RequestFlags : uint16_t {
  kRequestMeasured = 1,   // arrived after the warm-up: goes into the statistics
};

}  // namespace quanta
