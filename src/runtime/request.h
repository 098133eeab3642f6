// One request in the runtime, from the source that made it to the sink that takes its
// completion. A Request lives in a RequestPool owned by its source; the dispatcher and the
// workers pass a pointer to it (8 bytes through the rings), and ownership moves with the
// pointer: exactly one thread touches a request at a time. Its payload and response buffers
// are part of the record, sized when the pool is made, so nothing is allocated per request.
#pragma once

#include <cstddef>
#include <cstdint>

namespace quanta {

class Sink;

enum RequestFlags : uint32_t {
  kRequestMeasured = 1,       // goes into the statistics (arrived after the warm-up)
  kRequestStallTouched = 2,   // a host stall may have delayed it (set when it finishes)
};

struct Request {
  // Filled by the source.
  uint64_t id = 0;
  uint64_t cookie = 0;              // the source's own tag (the API: the user's cookie)
  uint64_t arrival_tsc = 0;         // latency counts from here, even if dispatch was late
  uint32_t class_index = 0;
  uint32_t nominal_service_ns = 0;  // the source's service time for it; 0: unknown
  uint64_t quantum_cycles = 0;      // its own quantum length; 0: its class's or the runtime's
  uint32_t flags = 0;
  uint32_t payload_len = 0;
  uint64_t frame_note = 0;          // the protocol framer's note for the handler (network sources); 0: none
  Sink* sink = nullptr;             // takes the completion (always set)
  // Filled by the runtime as the request runs.
  uint64_t start_tsc = 0;           // first quantum
  uint64_t finish_tsc = 0;
  uint64_t cpu_cycles = 0;          // the handler's time on the CPU
  uint64_t value = 0;               // the response's small result
  uint32_t quanta = 0;              // quanta it ran (preemptions + 1)
  int32_t status = 0;               // the response's status
  uint32_t response_len = 0;
  int32_t worker = -1;              // who finished it (-1: the dispatcher)
  // Buffers, fixed by the pool.
  std::byte* payload = nullptr;
  std::byte* response = nullptr;
  uint32_t payload_capacity = 0;
  uint32_t response_capacity = 0;
  uint32_t pool_index = 0;          // this record's index in its pool
};

// Why a request left the runtime without running.
enum class RejectReason : uint32_t {
  kRingFull,   // its worker's ring was full and the run drops rather than waits
  kNoSlot,     // central dispatch: every task slot was in use and the run drops
};

// Where a request's completion goes. Called on the thread that finished it (a worker, or
// the dispatcher): the sink must release the request to its pool, at once or later.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void complete(Request& request) = 0;
  // The request never ran (the runtime dropped it); called on the dispatcher's thread.
  virtual void reject(Request& request, RejectReason why) = 0;
};

}  // namespace quanta
