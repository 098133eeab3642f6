/* Runs one kernel (linked in from a plain or an instrumented object) and prints one JSON
 * line: checksum, cycles of each timed run, static probe count, probes executed in one run
 * (counting builds only) and, with --timing, how accurately the probes end 2 µs quanta.
 * A timed instrumented build also carries the kernel's plain twin (kernel_run_plain,
 * pass/Kernels.cmake): each timed run is then a pair, plain and instrumented back to back
 * in alternating order, and the plain cycles are printed beside. Never instrumented
 * itself. Driven by quanta-bench-probes. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "kernel.h"
#include "quanta/fn.h"
#include "quanta/probe.h"
#include "quanta/probe_record.h"

/* Filled by the pass: one record per instrumented object (quanta/probe_record.h). */
extern const struct quanta_probe_record __start_quanta_probes[] __attribute__((weak));
extern const struct quanta_probe_record __stop_quanta_probes[] __attribute__((weak));
/* Defined by objects compiled with -quanta-count-probes. */
extern uint64_t quanta_stat_probes_executed __attribute__((weak));
/* The plain twin, in timed instrumented builds only. */
void kernel_init_plain(void) __attribute__((weak));
uint64_t kernel_run_plain(void) __attribute__((weak));

/* Static probes of the whole program: the sum over its objects' records. A slot that is
 * not a record this harness knows (another magic or version) is skipped, not summed. */
static uint64_t static_probes(void) {
  uint64_t n = 0;
  if (__start_quanta_probes)
    for (const struct quanta_probe_record* r = __start_quanta_probes; r < __stop_quanta_probes; r++)
      if (r->magic == QUANTA_PROBE_RECORD_MAGIC && r->version == QUANTA_PROBE_RECORD_VERSION) n += r->probes;
  return n;
}

static int cmp_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

static void run_body(void* out) { *(uint64_t*)out = kernel_run(); }

enum { MAX_QUANTA = 1 << 21 };
static uint64_t intervals[MAX_QUANTA];

static void usage(FILE* f) {
  fprintf(f, "usage: %s [--runs N] [--timing-us US] [--no-pin]\n", kernel_name);
}

int main(int argc, char** argv) {
  int runs = 1, pin = 1;
  double timing_us = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
      runs = atoi(argv[++i]);
      if (runs < 0 || runs > 1000) { fprintf(stderr, "bad value for --runs\n"); return 2; }
    } else if (!strcmp(argv[i], "--timing-us") && i + 1 < argc) {
      timing_us = atof(argv[++i]);
      if (timing_us <= 0) { fprintf(stderr, "bad value for --timing-us\n"); return 2; }
    } else if (!strcmp(argv[i], "--no-pin")) {
      pin = 0;
    } else if (!strcmp(argv[i], "--help")) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "unknown option '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  if (pin) {  /* the last CPU: on a 2-core machine the first one takes the interrupts */
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(sysconf(_SC_NPROCESSORS_ONLN) - 1, &set);
    sched_setaffinity(0, sizeof set, &set);
  }

  kernel_init();
  uint64_t checksum = kernel_run();  /* warm-up, and the reference checksum */
  printf("{\"kernel\":\"%s\",\"checksum\":\"%016" PRIx64 "\",\"static_probes\":%" PRIu64,
         kernel_name, checksum, static_probes());

  if (&quanta_stat_probes_executed) {
    quanta_stat_probes_executed = 0;
    if (kernel_run() != checksum) { fprintf(stderr, "checksum changed between runs\n"); return 1; }
    printf(",\"executed_probes\":%" PRIu64, quanta_stat_probes_executed);
  }

  enum { MAX_RUNS = 1000 };
  static uint64_t cycles[MAX_RUNS], plain_cycles[MAX_RUNS];
  const int paired = runs > 0 && kernel_run_plain;
  if (paired) {
    kernel_init_plain();
    uint64_t plain_sum = kernel_run_plain();  /* its warm-up */
    if (plain_sum != checksum) { fprintf(stderr, "plain twin computes a different checksum\n"); return 1; }
    printf(",\"plain_checksum\":\"%016" PRIx64 "\"", plain_sum);
  }
  for (int r = 0; r < runs; r++) {
    /* Pairs alternate which build goes first: neither always runs on the other's
     * leftovers in the caches and predictors. */
    for (int half = 0; half < 1 + paired; half++) {
      int plain = paired && (half == (r & 1));
      uint64_t t0 = quanta_read_tsc();
      uint64_t c = plain ? kernel_run_plain() : kernel_run();
      uint64_t t1 = quanta_read_tsc();
      if (c != checksum) { fprintf(stderr, "checksum changed between runs\n"); return 1; }
      *(plain ? &plain_cycles[r] : &cycles[r]) = t1 - t0;
    }
  }
  printf(",\"run_cycles\":[");
  for (int r = 0; r < runs; r++) printf("%s%" PRIu64, r ? "," : "", cycles[r]);
  printf("]");
  if (paired) {
    printf(",\"plain_run_cycles\":[");
    for (int r = 0; r < runs; r++) printf("%s%" PRIu64, r ? "," : "", plain_cycles[r]);
    printf("]");
  }

  if (timing_us > 0) {
    uint64_t quantum = (uint64_t)(timing_us * quanta_tsc_per_us());
    uint64_t result = 0, n = 0, disturbed = 0;
    /* In a counting build: probes executed under preemption, i.e. what the quanta cost
     * (a probe that adapts its spacing to the deadline runs more often near it). */
    uint64_t probes_before = &quanta_stat_probes_executed ? quanta_stat_probes_executed : 0;
    /* The first quantum also maps and touches the stack: not a probe's doing, skipped. */
    quanta_fn* f = quanta_fn_launch(run_body, &result, quantum, 1 << 20);
    if (!f) { fprintf(stderr, "quanta_fn_launch failed\n"); return 1; }
    /* An interval runs from before the resume to the runtime's stop stamp, so it includes
     * the switch in and out: ~155 cycles on the dev VM with a plain probe spinning on the
     * clock (adaptive loop probes learn to yield early by the switch-out part). The
     * getrusage calls around it do not disturb the task: with them left out the error is
     * the same (checked on pointer_chase, hash_lookup and word_count). */
    struct rusage ru;
    while (!quanta_fn_completed(f)) {
      getrusage(RUSAGE_THREAD, &ru);
      long switches = ru.ru_nivcsw;
      uint64_t t0 = quanta_read_tsc();
      quanta_fn_resume(f, quantum);
      uint64_t stop = quanta_fn_last_stop_tsc(f);
      getrusage(RUSAGE_THREAD, &ru);
      if (quanta_fn_completed(f)) break;  /* the final, partial quantum is not a yield */
      /* A quantum during which the OS ran something else on this CPU measures the OS,
       * not the probes: counted, left out of the error. */
      if (ru.ru_nivcsw != switches) { disturbed++; continue; }
      if (n < MAX_QUANTA) intervals[n++] = stop - t0;
    }
    if (result != checksum) { fprintf(stderr, "checksum differs under preemption\n"); return 1; }
    double abs_err = 0, sum = 0;
    for (uint64_t i = 0; i < n; i++) {
      double e = (double)intervals[i] - (double)quantum;
      abs_err += e < 0 ? -e : e;
      sum += (double)intervals[i];
    }
    qsort(intervals, n, sizeof intervals[0], cmp_u64);
    uint64_t p99 = n ? intervals[(uint64_t)(0.99 * (double)(n - 1))] : 0;
    printf(",\"timing\":{\"quantum_cycles\":%" PRIu64 ",\"os_disturbed\":%" PRIu64 ",\"yields\":%" PRIu64
           ",\"mae_cycles\":%.1f,\"mean_interval_cycles\":%.1f,\"p99_interval_cycles\":%" PRIu64,
           quantum, disturbed, n, n ? abs_err / n : 0.0, n ? sum / n : 0.0, p99);
    if (&quanta_stat_probes_executed)
      printf(",\"probes_executed\":%" PRIu64 ",\"quanta\":%" PRIu64,
             quanta_stat_probes_executed - probes_before, quanta_fn_yields(f) + 1);
    printf("}");
    quanta_fn_destroy(f);
  }
  printf("}\n");
  return 0;
}
