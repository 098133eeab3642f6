/* A handler compiled by the pass in flag mode (tests/CMakeLists.txt), so it has a clock
 * twin: spins its request's service time (8 bytes of cycles in the payload) in a helper
 * of its own, which the twin calls as the helper's twin. Counts the requests it started,
 * so a test can wait until one is running before submitting the next. */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "quanta/quanta.h"

atomic_uint twin_test_started;

__attribute__((noinline)) static uint64_t spin_cycles(uint64_t service_cycles, uint64_t state) {
  while (quanta_task_cpu_cycles() < service_cycles) {
    for (int i = 0; i < 8; ++i) state = state * 6364136223846793005ull + 1442695040888963407ull;
  }
  return state;
}

void twin_test_handle(const quanta_request* request, quanta_response* response) {
  atomic_fetch_add(&twin_test_started, 1);
  uint64_t service_cycles = 0;
  if (request->payload_len >= sizeof service_cycles) memcpy(&service_cycles, request->payload, sizeof service_cycles);
  response->value = spin_cycles(service_cycles, request->id | 1);
  response->status = 0;
}
