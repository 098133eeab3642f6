/* The three copies of the spin app in one static library, for tests that link the runtime
 * and the app into one program (quanta run loads the shared objects instead). */
#include <string.h>

#include "spin_app.h"

/* Not named quanta_*: the pass leaves the runtime's own functions (that prefix) uninstrumented. */
void synthetic_spin_handle_clock(const quanta_request* request, quanta_response* response);
void synthetic_spin_handle_flag(const quanta_request* request, quanta_response* response);
void synthetic_spin_handle_plain(const quanta_request* request, quanta_response* response);

#define SPIN_COPY(handler)                            \
  {                                                   \
    .abi_version = QUANTA_APP_ABI_VERSION,            \
    .name = "spin",                                   \
    .handle_request = handler,                        \
    .make_request = synthetic_spin_make_request,      \
  }

static const quanta_app kSpinClock = SPIN_COPY(synthetic_spin_handle_clock);
static const quanta_app kSpinFlag = SPIN_COPY(synthetic_spin_handle_flag);
static const quanta_app kSpinPlain = SPIN_COPY(synthetic_spin_handle_plain);

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
