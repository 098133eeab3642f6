/* The synthetic application: each request carries a service time in cycles (the 8-byte
 * payload), and the handler stays on the CPU for exactly that long, counting only the
 * time it actually runs (not the time it spends preempted). */
#ifndef QUANTA_APPS_SPIN_APP_H
#define QUANTA_APPS_SPIN_APP_H

#include "quanta/quanta.h"

#ifdef __cplusplus
extern "C" {
#endif

const quanta_app* quanta_spin_app(void);

#ifdef __cplusplus
}
#endif

#endif
