/* The synthetic request handler: ordinary code with no probe and no yield in it. The build
 * compiles this file three times (apps/synthetic/CMakeLists.txt): with the quanta pass in
 * clock mode, in flag mode, and without the pass; SPIN_HANDLER names each copy. The pass
 * places the probes that make the loop preemptible, exactly as it would in an
 * application's own code.
 *
 * The handler stays on the CPU until its request has had its service time of CPU
 * (quanta_task_cpu_cycles_polled() counts only the time the task ran, not the time it
 * waited while preempted; its loop reads the clock often enough that the runtime also
 * learns from it when the host took the CPU away). The mixing steps give the loop real work whose result is returned, so
 * the compiler cannot drop it. */
#include <stdint.h>
#include <string.h>

#include "quanta/quanta.h"

#ifndef SPIN_HANDLER
#error "define SPIN_HANDLER to the name of this copy of the handler"
#endif

/* In the quanta_text section: a preemption signal may switch away anywhere in it. */
QUANTA_SIGNAL_SAFE void SPIN_HANDLER(const quanta_request* request, quanta_response* response) {
  uint64_t service_cycles = 0;
  memcpy(&service_cycles, request->payload, sizeof service_cycles);
  uint64_t state = request->id | 1;
  while (quanta_task_cpu_cycles_polled() < service_cycles) {
    for (int i = 0; i < 8; ++i) state = state * 6364136223846793005ull + 1442695040888963407ull;
  }
  response->status = 0;
  response->value = state;
}
