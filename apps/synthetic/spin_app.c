#include "spin_app.h"

#include <string.h>

/* The three compilations of spin_handler.c. Not named quanta_*: the pass leaves the
 * runtime's own functions (that prefix) uninstrumented. */
void synthetic_spin_handle_clock(const quanta_request* request, quanta_response* response);
void synthetic_spin_handle_flag(const quanta_request* request, quanta_response* response);
void synthetic_spin_handle_plain(const quanta_request* request, quanta_response* response);

static int spin_setup(const char* config) {
  (void)config;
  return 0;
}

static int spin_setup_worker(int worker_index) {
  (void)worker_index;
  return 0;
}

/* Written against the public API only, as any application would be. */
static const quanta_app kSpinClock = {
    .name = "spin",
    .setup = spin_setup,
    .setup_worker = spin_setup_worker,
    .handle_request = synthetic_spin_handle_clock,
};
static const quanta_app kSpinFlag = {
    .name = "spin",
    .setup = spin_setup,
    .setup_worker = spin_setup_worker,
    .handle_request = synthetic_spin_handle_flag,
};
static const quanta_app kSpinPlain = {
    .name = "spin",
    .setup = spin_setup,
    .setup_worker = spin_setup_worker,
    .handle_request = synthetic_spin_handle_plain,
};

const quanta_app* quanta_spin_app_for(const char* mechanism) {
  if (mechanism == NULL) return NULL;
  /* hybrid: clock probes end quanta, the signal is only the backstop. */
  if (strcmp(mechanism, "clock") == 0 || strcmp(mechanism, "hybrid") == 0) return &kSpinClock;
  if (strcmp(mechanism, "flag") == 0) return &kSpinFlag;
  /* signal interrupts uninstrumented code; none needs no probes and pays for none. */
  if (strcmp(mechanism, "signal") == 0 || strcmp(mechanism, "none") == 0) return &kSpinPlain;
  return NULL;
}

const quanta_app* quanta_spin_app(void) { return &kSpinClock; }
