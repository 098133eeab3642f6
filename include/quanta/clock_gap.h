/* Adaptive clock probes: the half of a compiler-placed loop probe that runs once per gap.
 *
 * In clock mode the pass makes a loop count down a *gap* (iterations, or cost units of the
 * function's loop budget) to its next probe; the countdown is inline. When it runs out the
 * loop calls quanta_clock_gap(), which reads the clock, yields through quanta_probe_slow()
 * once the site's yield time has passed, and returns the next gap: what is left to the
 * deadline at the speed the loop's last gaps ran, within caps. docs/pass-internals.md
 * ("Adaptive loop probes") gives the rules; src/preempt/clock_gap.h has them, one function
 * each.
 *
 * A site's state is QUANTA_GAP_WORDS 64-bit words in the probing function's frame. The pass
 * sets START to 0 at function entry, which marks the site fresh: quanta_clock_gap() then
 * takes the other words as 0 (speed unknown, no lead, no aim) and writes them itself. From
 * then on only quanta_clock_gap() writes them (START is never 0 again: it holds a clock).
 */
#ifndef QUANTA_CLOCK_GAP_H
#define QUANTA_CLOCK_GAP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum quanta_gap_word {
  QUANTA_GAP_START = 0,       /* the clock when the current gap started; 0: a fresh site */
  QUANTA_GAP_LENGTH = 1,      /* the current gap, in the loop's units */
  QUANTA_GAP_PREV_CYCLES = 2, /* cycles the gap before the last one took ... */
  QUANTA_GAP_PREV_UNITS = 3,  /* ... and its units (0: none measured) */
  QUANTA_GAP_LEAD = 4,        /* how far the clock runs ahead of the retired work, cycles */
  QUANTA_GAP_AIM = 5,         /* how early before the deadline the site yields, cycles */
  QUANTA_GAP_WORDS = 6
};

/* The probe of an adaptive site whose gap ran out. `static_gap`: the gap while the loop's
 * speed is unknown; `max_gap`: the longest gap in units (at least static_gap); `overshoot`:
 * how many units past its gap the loop went (a budget that went below zero); `max_cycles`:
 * the longest gap in cycles (-quanta-probe-max-cycles; values above 2^32 - 1 count as
 * 2^32 - 1). Returns the next gap, in [1, max_gap]. No locks, allocation or system calls. */
uint64_t quanta_clock_gap(uint64_t* site, uint64_t static_gap, uint64_t max_gap, uint64_t overshoot,
                          uint64_t max_cycles);

/* The thread's tick budget (quanta_tick_budget, probe.h) went below zero at a tick or at the
 * latch of a loop that charges it. Reads the clock, yields through quanta_probe_slow() once
 * the thread's yield time has passed, and refills the budget of the thread it returns on
 * with the next gap of that thread's own site, planned as quanta_clock_gap() plans a loop's.
 * `ahead`: units the caller charged for work that runs after this call (a tick's stretch);
 * they count against the new gap, not the old one. The other arguments as for
 * quanta_clock_gap(). No locks, allocation or system calls. */
void quanta_tick_gap(uint64_t ahead, uint64_t static_gap, uint64_t max_gap, uint64_t max_cycles);

#ifdef __cplusplus
}
#endif

#endif /* QUANTA_CLOCK_GAP_H */
