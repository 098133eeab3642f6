#include "spin_app.h"

#include <string.h>

static int spin_setup(const char* config) {
  (void)config;
  return 0;
}

static int spin_setup_worker(int worker_index) {
  (void)worker_index;
  return 0;
}

/* Written against the public API only, as any application would be. The probes are placed
 * by hand here (both kinds: the one the runtime's mechanism does not use never fires):
 * this loop is what the compiler pass instruments automatically in other code. The
 * result is a checksum over the work, so the loop cannot be optimized away. */
/* In the quanta_text section: a preemption signal may switch away anywhere in it. */
QUANTA_SIGNAL_SAFE static void spin_handle(const quanta_request* request, quanta_response* response) {
  uint64_t service_cycles = 0;
  memcpy(&service_cycles, request->payload, sizeof service_cycles);
  uint64_t state = request->id | 1;
  while (quanta_task_cpu_cycles() < service_cycles) {
    for (int i = 0; i < 8; ++i) state = state * 6364136223846793005ull + 1442695040888963407ull;
    quanta_probe();
    quanta_flag_probe();
  }
  response->status = 0;
  response->value = state;
}

static const quanta_app kSpinApp = {
    .name = "spin",
    .setup = spin_setup,
    .setup_worker = spin_setup_worker,
    .handle_request = spin_handle,
};

const quanta_app* quanta_spin_app(void) { return &kSpinApp; }
