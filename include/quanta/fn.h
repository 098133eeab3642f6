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

/* Task stacks fn.h accepts (0 asks for the default, 64 KiB). */
#define QUANTA_FN_MIN_STACK_BYTES (16u * 1024u)
#define QUANTA_FN_MAX_STACK_BYTES (1ull << 30)

/* Creates a preemptible call of fn(arg) with a stack of `stack_bytes` (0: 64 KiB) and
 * runs it for up to `quantum_cycles` (0, or more than the cycle counter has left: no
 * deadline, run until it yields by itself). Returns NULL with errno EINVAL (fn is NULL, or
 * stack_bytes is outside QUANTA_FN_MIN/MAX_STACK_BYTES), ENOMEM (no stack could be mapped)
 * or EDEADLK (called from inside a preemptible function: launches do not nest). */
quanta_fn* quanta_fn_launch(void (*fn)(void*), void* arg, uint64_t quantum_cycles,
                            uint64_t stack_bytes);
/* Runs the function for another quantum. Returns 1 once it has completed, 0 if it yielded,
 * -1 with errno EINVAL (NULL handle) or EDEADLK (called from inside a preemptible
 * function). */
int quanta_fn_resume(quanta_fn* f, uint64_t quantum_cycles);
/* 1 once completed, 0 before, -1 (errno EINVAL) for a NULL handle. */
int quanta_fn_completed(const quanta_fn* f);
/* Number of times the function yielded (was preempted) so far (0 for NULL). */
uint64_t quanta_fn_yields(const quanta_fn* f);
/* Cycle-counter value when the function last gave up the CPU (yield or completion). */
uint64_t quanta_fn_last_stop_tsc(const quanta_fn* f);
/* Frees the stack (NULL: nothing). A function that has not completed is abandoned (its
 * stack is unmapped without unwinding). Destroying the running function from inside it
 * aborts with a message, and so does any call on a handle already destroyed (while its
 * freed memory still says so). */
void quanta_fn_destroy(quanta_fn* f);

/* Cycle-counter ticks per microsecond, measured once per process. */
double quanta_tsc_per_us(void);

#ifdef __cplusplus
}
#endif

#endif /* QUANTA_FN_H */
