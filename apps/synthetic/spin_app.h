/* The synthetic application: each request carries a service time in cycles (its 8-byte
 * payload, built by make_request from the workload's draw), and the handler stays on the
 * CPU for exactly that long, counting only the time it actually runs (not the time it
 * spends preempted). Its handler is plain C compiled with the quanta pass
 * (spin_handler.c), once per probe kind.
 *
 * `quanta run` loads it like any app, from the shared objects spin-clock.so, spin-flag.so
 * and spin-plain.so (spin_export.c). Tests link the same code statically and pick a copy
 * with quanta_spin_app_for(). */
#ifndef QUANTA_APPS_SPIN_APP_H
#define QUANTA_APPS_SPIN_APP_H

#include "quanta/quanta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The parts every copy shares. */
int synthetic_spin_make_request(const quanta_request_spec* spec, void* buffer, uint32_t capacity, uint32_t* len);

/* The copy of the handler whose probes match `mechanism` (a --preempt name): clock probes
 * for clock and hybrid, flag probes for flag, no probes for signal and none. NULL for an
 * unknown name. */
const quanta_app* quanta_spin_app_for(const char* mechanism);
/* The clock-probe copy. */
const quanta_app* quanta_spin_app(void);

#ifdef __cplusplus
}
#endif

#endif
