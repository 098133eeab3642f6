// Where requests come from. A source makes Requests (from its own RequestPool) and the
// dispatcher polls it; each request names the Sink that takes its completion, usually
// the source itself. The in-process generator (io/generator_source.h), the public API's
// submissions (runtime/api_source.h) and the network front end are all sources: the
// dispatcher treats them alike.
#pragma once

#include <cstdint>

#include "runtime/request.h"

namespace quanta {

class Source {
 public:
  virtual ~Source() = default;
  // Called on the dispatcher's thread: puts up to `max` requests that are due at `now_tsc`
  // into `out` and returns how many. Never blocks.
  virtual uint32_t poll(uint64_t now_tsc, Request** out, uint32_t max) = 0;
  // True once the source will never produce again (its schedule is over; it was closed
  // and has nothing left). The dispatcher stops when every source is exhausted and every
  // request has finished.
  virtual bool exhausted() const = 0;
  // The runtime is stopping: take no new requests (what was taken is still handed over).
  virtual void close() = 0;
};

}  // namespace quanta
