/* quanta runtime API (C): start a runtime from your own program, hand it requests from
 * your own threads, take their completions, stop it.
 *
 *   quanta_runtime_options o;
 *   quanta_runtime_options_init(&o);          // defaults; then set what you need
 *   o.quantum_us = 5;
 *   quanta_runtime* rt;
 *   if (quanta_runtime_start(&o, &my_app, "config", &rt) != QUANTA_OK) {
 *     fprintf(stderr, "%s\n", quanta_last_error());
 *   }
 *   quanta_runtime_submit(rt, bytes, len, class_index, cookie);   // any thread
 *   quanta_completion done[64];
 *   int n = quanta_runtime_poll(rt, done, 64);                    // or o.on_complete
 *   quanta_runtime_stop(rt, &stats);                              // drains, then stops
 *   quanta_runtime_destroy(rt);
 *
 * The runtime takes one CPU for its dispatcher and one per worker, pins a thread to each
 * and keeps them spinning until it stops. Every call returns QUANTA_OK (0) or a negative
 * error code; quanta_last_error() then says what was wrong, for the calling thread.
 */
#ifndef QUANTA_RUNTIME_H
#define QUANTA_RUNTIME_H

#include <stdint.h>

#include "quanta/fn.h" /* quanta_tsc_per_us(): completion times are cycle-counter values */
#include "quanta/quanta.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  QUANTA_OK = 0,
  QUANTA_ERR_INVALID = -1, /* a NULL argument, an option out of range, an unknown policy name */
  QUANTA_ERR_STATE = -2,   /* not in this state: submit after stop, stop twice, ... */
  QUANTA_ERR_FULL = -3,    /* max_in_flight requests are in the runtime: take completions, retry */
  QUANTA_ERR_TOO_BIG = -4, /* a payload longer than max_payload_bytes */
  QUANTA_ERR_APP = -5,     /* the app's setup or setup_worker failed */
  QUANTA_ERR_SYSTEM = -6,  /* threads, memory or CPUs could not be had */
  QUANTA_ERR_BUSY = -7,    /* another thread is polling this runtime right now */
};

/* "QUANTA_ERR_FULL" for QUANTA_ERR_FULL, ...; "unknown" for anything else. */
const char* quanta_error_name(int code);
/* What the last failed quanta_runtime_* call on this thread was refused for; "" if none. */
const char* quanta_last_error(void);

/* One finished request. Times are cycle-counter values (quanta_tsc_per_us() converts). */
typedef struct quanta_completion {
  uint64_t cookie;          /* as given to quanta_runtime_submit */
  uint64_t id;              /* the runtime's id for the request, in submission order */
  uint32_t class_index;
  int32_t status;           /* the handler's response status */
  const void* response;     /* the response bytes; see quanta_runtime_poll for how long they live */
  uint32_t response_len;
  int32_t worker;           /* the worker that finished it; -1: the dispatcher ran it */
  uint64_t value;           /* the handler's response value */
  uint64_t arrival_tsc;     /* when it was submitted */
  uint64_t start_tsc;       /* when its handler first ran */
  uint64_t finish_tsc;      /* when it finished */
  uint64_t cpu_cycles;      /* CPU time its handler used, time preempted not counted */
  uint32_t quanta;          /* quanta it ran for (1: never preempted) */
  uint32_t stall_touched;   /* 1: a host stall (the VM took a runtime CPU away) may have delayed it */
} quanta_completion;

/* Called on the thread that finished the request (a worker, or the dispatcher); the
 * response bytes are valid only during the call. Keep it short: the worker serves no
 * other request meanwhile. */
typedef void (*quanta_completion_fn)(const quanta_completion* completion, void* user);

typedef struct quanta_runtime_options {
  uint32_t size;               /* sizeof(quanta_runtime_options): set by _init */
  uint32_t workers;            /* worker threads; 0: one per allowed CPU but the dispatcher's */
  int dispatcher_cpu;          /* -1: the first CPU of the process's affinity mask */
  const int* worker_cpus;      /* `workers` CPUs; NULL: the allowed CPUs after the dispatcher's */
  double quantum_us;           /* 2 */
  const char* local_policy;    /* "ps", "fcfs", "las" */
  const char* dispatch_policy; /* "jsq-msq", "jsq", "random", "po2", "central", "jbsq:K", "steal" */
  const char* preempt;         /* "clock", "flag", "signal", "hybrid", "none" */
  double backstop_us;          /* hybrid: the signal comes this long into a quantum (100) */
  int dispatcher_works;        /* central/jbsq:K: the dispatcher runs requests when workers are full
                                  (preempt clock, hybrid, or flag: then the handler's clock twin,
                                  quanta/flag_twins.h; a handler without one is refused) */
  uint32_t stack_kib;          /* each task's stack (64) */
  uint32_t task_slots;         /* requests a worker runs at once (64) */
  uint32_t ring_capacity;      /* requests queued per worker (4096) */
  uint32_t max_in_flight;      /* submitted and not yet taken back (4096): beyond, QUANTA_ERR_FULL */
  uint32_t max_payload_bytes;  /* largest request payload (4096) */
  uint32_t max_response_bytes; /* response buffer per request (4096) */
  uint32_t class_count;        /* class_index ranges over 0..class_count-1 (1) */
  quanta_completion_fn on_complete; /* NULL: completions wait for quanta_runtime_poll */
  void* on_complete_user;
  int oversubscribe;           /* allow more workers than free CPUs (tests only: latencies mean nothing) */
  const char* idle;            /* what idle runtime threads do: "spin" (default), "yield" (sched_yield after
                                  20 us), "block" (sleep after 20 us until work comes; a submit then costs
                                  a fence, and a system call when the dispatcher sleeps) */
  double idle_spin_us;         /* "yield"/"block": how long an idle thread spins first (20; 0: at once) */
  int dispatcher_only;         /* no worker threads: the dispatcher runs every request, a quantum at a time
                                  (needs dispatch_policy "central", preempt "clock" or "none", workers 0) */
  double overrun_report_quanta;/* the watchdog counts quanta that run this many quanta long (10000; 0: never):
                                  quanta_run_stats.overruns */
  double watchdog_ms;          /* a quantum this long ends the process: a message on stderr, exit status 1
                                  (0, the default: never) */
  const double* class_quantum_us; /* NULL, or class_count quantum lengths, one per class (0: quantum_us) */
  const char* class_schedule;  /* NULL, or latency-critical and best-effort classes per worker, by class index
                                  (docs/runtime.md): "lc,be:30/100" = class 0 LC, class 1 BE with 30 us of
                                  every 100 us guaranteed while LC waits; ":cap" never past it, ":pN" a priority.
                                  Needs a two-level dispatch_policy (jsq-msq, jsq, random, po2) */
  const char* adaptive_quantum; /* NULL (a fixed quantum), or "adaptive:MIN:MAX[:KEY=V,...]": LibPreemptible's
                                  controller moves the runtime's quantum between MIN and MAX us once a period,
                                  starting from quantum_us (clamped); keys as `quanta run --quantum-us`
                                  (docs/runtime.md). quanta_runtime_set_quantum is then refused */
} quanta_runtime_options;

void quanta_runtime_options_init(quanta_runtime_options* options);

typedef struct quanta_runtime quanta_runtime;

/* Validates the options, calls the app's setup(config) and starts the dispatcher and the
 * workers (each calls setup_worker). On success *out is the running runtime. */
int quanta_runtime_start(const quanta_runtime_options* options, const quanta_app* app, const char* config,
                         quanta_runtime** out);

/* Hands the runtime one request: `len` bytes are copied, so the buffer may be reused at
 * once. Safe from any number of threads. */
int quanta_runtime_submit(quanta_runtime* runtime, const void* payload, uint32_t len, uint32_t class_index,
                          uint64_t cookie);

/* The same with the request's own quantum length (LibPreemptible's per-request deadline):
 * it runs in quanta of `quantum_us` whatever its class's or the runtime's (0: theirs). */
int quanta_runtime_submit_with_quantum(quanta_runtime* runtime, const void* payload, uint32_t len,
                                       uint32_t class_index, uint64_t cookie, double quantum_us);

/* Changes the runtime's quantum while it runs (any thread): requests without a quantum of
 * their own or of their class run in quanta of `quantum_us` from their next quantum on. */
int quanta_runtime_set_quantum(quanta_runtime* runtime, double quantum_us);

/* The runtime's quantum now, in us (the adaptive controller's latest, or the last one set). */
int quanta_runtime_quantum(const quanta_runtime* runtime, double* quantum_us);

/* One decision of the adaptive controller: what it saw over the period that ended at_s
 * seconds into the run, and the quantum it chose. */
enum {
  QUANTA_RULE_HIGH_LOAD = 1,  /* load above `high`: down by k1 */
  QUANTA_RULE_LONG_QUEUE = 2, /* more than `queue` requests waiting per worker: down by k2 */
  QUANTA_RULE_HEAVY_TAIL = 4, /* the tail index fitted to p50 and p99 below `alpha`: down by k2 */
  QUANTA_RULE_LOW_LOAD = 8,   /* load below `low`: up by k3 */
};
typedef struct quanta_quantum_decision {
  double at_s;
  double quantum_us;       /* from then on */
  double load;             /* share of the workers' time spent running requests in the period */
  double queue_per_worker; /* requests waiting per worker at its end */
  double p50_us, p99_us;   /* sojourn of the requests that finished in it (0: none did) */
  double tail_index;       /* fitted Pareto alpha; INFINITY when p99 <= p50 */
  uint32_t rules;          /* QUANTA_RULE_* that fired */
} quanta_quantum_decision;

/* The adaptive controller's decisions of a stopped runtime, in order: copies up to `max`
 * into `out` and returns how many there are in all (0 without adaptive_quantum). */
int quanta_runtime_quantum_decisions(const quanta_runtime* runtime, quanta_quantum_decision* out, uint32_t max);

/* Takes up to `max` completions (without an on_complete callback). Returns how many (0:
 * none yet) or an error. Their response bytes stay valid until this runtime's next poll,
 * stop or destroy. One thread at a time (else QUANTA_ERR_BUSY); also after stop. */
int quanta_runtime_poll(quanta_runtime* runtime, quanta_completion* out, uint32_t max);

typedef struct quanta_latency {
  double mean, p50, p99, p999, max;
} quanta_latency;

typedef struct quanta_class_stats {
  uint64_t completed;
  quanta_latency sojourn_us;     /* finish - arrival */
  quanta_latency cpu_us;         /* CPU time used */
  quanta_latency slowdown;       /* sojourn / CPU time used */
  double preemptions_per_request;
} quanta_class_stats;

typedef struct quanta_run_stats {
  uint64_t submitted;
  uint64_t completed;
  uint64_t app_errors;           /* completions with a non-zero status */
  uint64_t quanta;
  uint64_t migrations;           /* central/steal: quanta run on another worker than the last */
  double elapsed_s;              /* start .. stop */
  uint32_t class_count;
  /* Host stalls: the VM took a runtime thread's CPU away (docs/runtime.md, "Host stalls"). */
  uint64_t host_stalls;          /* stalls the dispatcher and the workers noticed, summed */
  double host_stalled_ms;        /* their total length */
  uint64_t stall_touched;        /* completions a stall may have delayed (stall_touched set) */
  /* The watchdog: quanta that ran past overrun_report_quanta quanta (no preemption point
   * reached: code without probes, preemption disabled; or the host took the CPU). */
  uint64_t overruns;
} quanta_run_stats;

/* Stops taking requests, waits until every submitted request has finished, stops the
 * threads (teardown_worker on each, then teardown) and fills *stats (may be NULL).
 * Completions not yet polled can still be polled afterwards. */
int quanta_runtime_stop(quanta_runtime* runtime, quanta_run_stats* stats);

/* Statistics of one class of a stopped runtime. */
int quanta_runtime_class_stats(const quanta_runtime* runtime, uint32_t class_index, quanta_class_stats* out);
/* The same over the requests no host stall touched (completions with stall_touched 0):
 * on a VM, the figures closer to what the scheduler does than the host. */
int quanta_runtime_untouched_class_stats(const quanta_runtime* runtime, uint32_t class_index,
                                         quanta_class_stats* out);

/* What one class of class_schedule used of the workers' CPUs (a stopped runtime), summed over
 * the workers: the budget accounting, measured at quantum ends. */
typedef struct quanta_class_usage {
  uint64_t quanta;              /* quanta its requests ran */
  double cpu_us;                /* their length, summed */
  uint64_t budget_ended_quanta; /* quanta its budget cut short (the request went on later) */
  uint64_t throttled_spells;    /* idle spells of a worker while it waited, capped and out of budget */
  uint64_t admissions_deferred; /* BE requests that waited for a task slot aside from the ring (the free
                                   slots were those kept for LC requests) */
} quanta_class_usage;

/* `class_index` below the schedule's class count; QUANTA_ERR_STATE without a class_schedule. */
int quanta_runtime_class_usage(const quanta_runtime* runtime, uint32_t class_index, quanta_class_usage* out);

/* Frees everything; stops the runtime first if it still runs. NULL is a no-op. */
void quanta_runtime_destroy(quanta_runtime* runtime);

/* The library's version, "MAJOR.MINOR.PATCH". */
const char* quanta_version(void);

#ifdef __cplusplus
}
#endif

#endif /* QUANTA_RUNTIME_H */
