/* What the three copies of the spin app share: the request builder. The payload is the
 * request's service time in cycle-counter ticks, so the handler needs no clock conversion. */
#include "spin_app.h"

#include <string.h>

#include "quanta/fn.h"

int synthetic_spin_make_request(const quanta_request_spec* spec, void* buffer, uint32_t capacity, uint32_t* len) {
  if (capacity < sizeof(uint64_t)) return -1;
  const uint64_t cycles = (uint64_t)((double)spec->service_ns * quanta_tsc_per_us() / 1000.0 + 0.5);
  memcpy(buffer, &cycles, sizeof cycles);
  *len = sizeof cycles;
  return 0;
}
