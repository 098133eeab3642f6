/* The spin app as a shared object for `quanta run --app`: one copy of the handler per
 * object (SPIN_HANDLER names it; the build makes spin-clock.so, spin-flag.so and
 * spin-plain.so). It takes its classes from the workload (--workload). */
#include "spin_app.h"

void SPIN_HANDLER(const quanta_request* request, quanta_response* response);

static const quanta_app kSpin = {
    .abi_version = QUANTA_APP_ABI_VERSION,
    .name = "spin",
    .handle_request = SPIN_HANDLER,
    .make_request = synthetic_spin_make_request,
};

QUANTA_APP_EXPORT(kSpin)
