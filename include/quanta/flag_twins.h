/* Clock twins of flag-probed functions (Concord's dispatcher copy).
 *
 * In flag mode the pass also emits, for every function it instruments, a twin with clock
 * probes in which direct calls to other instrumented functions go to their twins
 * (docs/pass.md, "Clock twins"). A thread that nobody writes a flag for (the dispatcher
 * running a request itself, --dispatcher-works) runs the twin and stops at its own deadline.
 *
 * Each instrumented module has a constant table of (flag function, clock twin) pairs and a
 * constructor that hands it to the runtime, with a destructor that takes it back. Why a
 * constructor rather than a section walked from __start_/__stop_ symbols: those symbols are
 * defined per linked object and hidden, so a runtime in the program (or in libquanta.so)
 * cannot see the section of an app it dlopen()s, while a constructor runs in every object,
 * linked statically or loaded later, before anything can ask for its twins.
 *
 * The pass declares quanta_register_flag_twins weak: an object linked without the runtime
 * (QUANTA_NO_RUNTIME=1, the probe benchmarks' harness) registers nothing and still links.
 */
#ifndef QUANTA_FLAG_TWINS_H
#define QUANTA_FLAG_TWINS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct quanta_flag_twin {
  const void* flag_fn;  /* the function as compiled (flag probes) */
  const void* clock_fn; /* its twin (clock probes) */
};

/* Called by the pass's constructors and destructors; `pairs` must stay valid until
 * unregistered (the pass's tables are constants of the object). Not for the hot path: it
 * takes a lock. */
void quanta_register_flag_twins(const struct quanta_flag_twin* pairs, uint64_t count);
void quanta_unregister_flag_twins(const struct quanta_flag_twin* pairs);

/* The clock twin of `flag_fn`, or NULL when no loaded object registered one. */
const void* quanta_flag_twin_of(const void* flag_fn);

#ifdef __cplusplus
}
#endif

#endif /* QUANTA_FLAG_TWINS_H */
