/* Preemptible functions (the LibPreemptible launch / resume / completed API) on the
 * calling thread, without workers or a dispatcher. A function runs on its own pooled
 * stack; launch and resume run it for at most one quantum (ended by the clock probes in
 * its code) and return when it yields or finishes.
 */
#ifndef QUANTA_FN_H
#define QUANTA_FN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct quanta_fn quanta_fn;

/* Creates a preemptible call of fn(arg) with a stack of `stack_bytes` (0: 64 KiB) and
 * runs it for up to `quantum_cycles` (0: no deadline, run until it yields by itself).
 * Returns NULL if no stack could be mapped. */
quanta_fn* quanta_fn_launch(void (*fn)(void*), void* arg, uint64_t quantum_cycles,
                            uint64_t stack_bytes);
/* Runs the function for another quantum. Returns 1 once it has completed. */
int quanta_fn_resume(quanta_fn* f, uint64_t quantum_cycles);
int quanta_fn_completed(const quanta_fn* f);
/* Number of times the function yielded (was preempted) so far. */
uint64_t quanta_fn_yields(const quanta_fn* f);
/* Cycle-counter value when the function last gave up the CPU (yield or completion). */
uint64_t quanta_fn_last_stop_tsc(const quanta_fn* f);
/* Frees the stack. A function that has not completed is abandoned (its stack is unmapped
 * without unwinding). */
void quanta_fn_destroy(quanta_fn* f);

/* Cycle-counter ticks per microsecond, measured once per process. */
double quanta_tsc_per_us(void);

#ifdef __cplusplus
}
#endif

#endif /* QUANTA_FN_H */
