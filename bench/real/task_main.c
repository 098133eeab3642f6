/* Runs a whole program's main() inside a preemptible function (include/quanta/fn.h), for
 * the real-program benchmark (bench/real_programs.py). Linked into every instrumented
 * build of a benchmark program (scripts/realbench/build.sh adds it to the link line);
 * compiled plain, never instrumented itself.
 *
 * How: the C start files (_start in crt1.o) call __libc_start_main(main, ...). This
 * object defines that symbol in the executable, so _start reaches it first; it looks up
 * glibc's own with dlsym(RTLD_NEXT) and hands it a main of ours. That main calls the
 * program's main directly (no task, no cost beyond one dlsym) unless
 * QUANTA_REALBENCH_QUANTUM_US is set; then it launches the program's main as a quanta_fn
 * with that quantum and resumes it at once after every yield, like bench/kernels/harness.c
 * does for a kernel, recording each quantum's interval and whether the OS switched the
 * thread out or a page fault hit during it.
 *
 * A counting build (QUANTA_COUNT_PROBES=1) also times its calls into the library
 * (quanta_stat_library_cycles, pass/LibraryCallTiming.h); under a quantum the report then
 * gives each class's intervals less the library's cycles in them as well: the stretches
 * the probes left, apart from libc and the system calls it makes.
 *
 * With QUANTA_REALBENCH_OUT=<file> it writes one JSON object there when the program ends
 * (from an atexit handler, so a program that calls exit() inside the task is measured
 * too): the binary's static probes (its quanta_probes records), probes executed (counting
 * builds) and, under a quantum, the yield statistics. The program's own output is left
 * alone, so it can be compared with the plain build's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "quanta/fn.h"
#include "quanta/probe.h"
#include "quanta/probe_record.h"

extern const struct quanta_probe_record __start_quanta_probes[] __attribute__((weak));
extern const struct quanta_probe_record __stop_quanta_probes[] __attribute__((weak));
extern uint64_t quanta_stat_probes_executed __attribute__((weak));
/* Entry ticks (functions on call-graph cycles, clock mode) and the clock reads they made;
 * a tick is one of the executed probes. */
extern uint64_t quanta_stat_ticks_executed __attribute__((weak));
extern uint64_t quanta_stat_tick_clock_reads __attribute__((weak));
/* Cycles spent in calls to library functions (counting builds). */
extern uint64_t quanta_stat_library_cycles __attribute__((weak));

typedef int (*main_fn)(int, char**, char**);
typedef int (*start_main_fn)(main_fn, int, char**, void (*)(void), void (*)(void), void (*)(void),
                             void*);

/* Quantum flags, kept in the top bits of the recorded interval. */
#define FLAG_OS (1ull << 63)    /* the thread was switched out (the OS's time, not a probe's) */
#define FLAG_FAULT (1ull << 62) /* a page fault was taken (the kernel's time) */
/* The thread's CPU time grew by at least kStolenUs less than the wall time: something
 * else ran (the hypervisor, an interrupt) that the guest's switch counters do not show. */
#define FLAG_STOLEN (1ull << 61)
#define INTERVAL_MASK (FLAG_STOLEN - 1)
enum { kStolenUs = 5 };
enum { MAX_QUANTA = 1 << 23 }; /* 64 MiB of bss, touched only as far as used */
static uint64_t intervals[MAX_QUANTA];
static uint64_t library_cycles[MAX_QUANTA]; /* of each quantum, when the build times them */
static uint64_t n_quanta, dropped_quanta, quantum_cycles;
static uint64_t probes_at_launch, ticks_at_launch, tick_reads_at_launch, library_at_launch;

static main_fn program_main;
static int program_argc;
static char** program_argv;
static char** program_envp;
static int program_status;

static int cmp_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

static uint64_t static_probes(void) {
  uint64_t n = 0;
  if (__start_quanta_probes)
    for (const struct quanta_probe_record* r = __start_quanta_probes; r < __stop_quanta_probes; r++)
      if (r->magic == QUANTA_PROBE_RECORD_MAGIC && r->version == QUANTA_PROBE_RECORD_VERSION) n += r->probes;
  return n;
}

/* Sorts the n values and prints `"p99_<what>":..,"max_<what>":..,"over_4_quanta<suffix>":..`. */
static void print_tail(FILE* f, uint64_t* values, uint64_t n, const char* what, const char* suffix) {
  qsort(values, n, sizeof values[0], cmp_u64);
  uint64_t over = 0;
  for (uint64_t i = 0; i < n; i++) over += values[i] > 4 * quantum_cycles;
  fprintf(f, "\"p99_%s\":%" PRIu64 ",\"max_%s\":%" PRIu64 ",\"over_4_quanta%s\":%" PRIu64, what,
          n ? values[(uint64_t)(0.99 * (double)(n - 1))] : 0, what, n ? values[n - 1] : 0, suffix, over);
}

/* Prints {"quanta":n,"mae_cycles":..,"p99_interval_cycles":..,"max_interval_cycles":..,
 * "over_4_quanta":..} for the recorded quanta whose flags are within `allowed`, and, when
 * the build times its library calls, the same tail of the intervals less those calls'
 * cycles ("p99_outside_library_cycles", ...). */
static void print_class(FILE* f, const char* name, uint64_t allowed) {
  uint64_t n = 0;
  double abs_err = 0;
  static uint64_t sorted[MAX_QUANTA];
  static uint64_t outside[MAX_QUANTA];
  for (uint64_t i = 0; i < n_quanta; i++) {
    if (intervals[i] & ~allowed & ~INTERVAL_MASK) continue; /* a flag not allowed */
    uint64_t v = intervals[i] & INTERVAL_MASK;
    double e = (double)v - (double)quantum_cycles;
    abs_err += e < 0 ? -e : e;
    outside[n] = v > library_cycles[i] ? v - library_cycles[i] : 0;
    sorted[n++] = v;
  }
  fprintf(f, "\"%s\":{\"quanta\":%" PRIu64 ",\"mae_cycles\":%.1f,", name, n, n ? abs_err / (double)n : 0.0);
  print_tail(f, sorted, n, "interval_cycles", "");
  if (&quanta_stat_library_cycles) {
    fputc(',', f);
    print_tail(f, outside, n, "outside_library_cycles", "_outside_library");
  }
  fputc('}', f);
}

static void write_report(void) {
  const char* path = getenv("QUANTA_REALBENCH_OUT");
  if (!path) return;
  FILE* f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "task_main: cannot open QUANTA_REALBENCH_OUT '%s'\n", path);
    return;
  }
  fprintf(f, "{\"static_probes\":%" PRIu64, static_probes());
  if (&quanta_stat_probes_executed)
    fprintf(f, ",\"executed_probes\":%" PRIu64, quanta_stat_probes_executed - probes_at_launch);
  if (&quanta_stat_probes_executed && &quanta_stat_ticks_executed && &quanta_stat_tick_clock_reads) {
    const uint64_t ticks = quanta_stat_ticks_executed - ticks_at_launch;
    const uint64_t reads = quanta_stat_tick_clock_reads - tick_reads_at_launch;
    fprintf(f, ",\"executed_ticks\":%" PRIu64 ",\"tick_clock_reads\":%" PRIu64 ",\"executed_clock_reads\":%" PRIu64,
            ticks, reads, quanta_stat_probes_executed - probes_at_launch - ticks + reads);
  }
  if (&quanta_stat_library_cycles)
    fprintf(f, ",\"library_cycles\":%" PRIu64, quanta_stat_library_cycles - library_at_launch);
  if (quantum_cycles) {
    uint64_t os = 0, fault = 0, stolen = 0;
    for (uint64_t i = 0; i < n_quanta; i++) {
      os += (intervals[i] & FLAG_OS) != 0;
      fault += (intervals[i] & FLAG_FAULT) != 0;
      stolen += (intervals[i] & FLAG_STOLEN) != 0;
    }
    fprintf(f,
            ",\"timing\":{\"quantum_cycles\":%" PRIu64 ",\"yields\":%" PRIu64 ",\"os_disturbed\":%" PRIu64
            ",\"stolen\":%" PRIu64 ",\"with_page_fault\":%" PRIu64 ",\"not_recorded\":%" PRIu64 ",",
            quantum_cycles, n_quanta, os, stolen, fault, dropped_quanta);
    /* "clean": neither the OS, nor stolen time, nor a page fault; "with_faults":
     * page-fault quanta too. Quanta the OS switched out or that lost time to something
     * else are left out of both (they time the host, not the probes). */
    print_class(f, "clean", 0);
    fputc(',', f);
    print_class(f, "with_faults", FLAG_FAULT);
    fputc('}', f);
  }
  fprintf(f, "}\n");
  fclose(f);
}

static void run_program(void* unused) {
  (void)unused;
  program_status = program_main(program_argc, program_argv, program_envp);
}

static uint64_t faults_of(const struct rusage* ru) { return (uint64_t)(ru->ru_minflt + ru->ru_majflt); }
static uint64_t switches_of(const struct rusage* ru) { return (uint64_t)(ru->ru_nivcsw + ru->ru_nvcsw); }
/* The thread's CPU time in ns: exact (getrusage's is only brought up to date at ticks),
 * and with the hypervisor's stolen time left out where the kernel accounts for it. */
static int64_t thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int task_main(int argc, char** argv, char** envp) {
  program_argc = argc;
  program_argv = argv;
  program_envp = envp;
  if (getenv("QUANTA_REALBENCH_OUT")) atexit(write_report);
  const char* q = getenv("QUANTA_REALBENCH_QUANTUM_US");
  if (!q) return program_main(argc, argv, envp);
  char* end = NULL;
  double us = strtod(q, &end);
  if (!*q || *end || !(us >= 0.1 && us <= 1000)) {
    fprintf(stderr, "task_main: bad QUANTA_REALBENCH_QUANTUM_US '%s' (expected microseconds in [0.1, 1000])\n", q);
    exit(2);
  }
  const double tsc_per_us = quanta_tsc_per_us();
  quantum_cycles = (uint64_t)(us * tsc_per_us);
  probes_at_launch = &quanta_stat_probes_executed ? quanta_stat_probes_executed : 0;
  ticks_at_launch = &quanta_stat_ticks_executed ? quanta_stat_ticks_executed : 0;
  tick_reads_at_launch = &quanta_stat_tick_clock_reads ? quanta_stat_tick_clock_reads : 0;
  library_at_launch = &quanta_stat_library_cycles ? quanta_stat_library_cycles : 0;
  /* 64 MiB: interpreters and parsers recurse deeply; pages are mapped as touched. */
  quanta_fn* f = quanta_fn_launch(run_program, NULL, quantum_cycles, 64ull << 20);
  if (!f) {
    perror("task_main: quanta_fn_launch");
    exit(1);
  }
  /* The launch ran the first quantum (stack set-up and the program's start): not timed. */
  struct rusage before, after;
  while (!quanta_fn_completed(f)) {
    getrusage(RUSAGE_THREAD, &before);
    int64_t cpu0 = thread_cpu_ns();
    const uint64_t library0 = &quanta_stat_library_cycles ? quanta_stat_library_cycles : 0;
    uint64_t t0 = quanta_read_tsc();
    quanta_fn_resume(f, quantum_cycles);
    uint64_t stop = quanta_fn_last_stop_tsc(f);
    const uint64_t library = &quanta_stat_library_cycles ? quanta_stat_library_cycles - library0 : 0;
    int64_t cpu1 = thread_cpu_ns();
    getrusage(RUSAGE_THREAD, &after);
    if (quanta_fn_completed(f)) break; /* the last, partial quantum is not a yield */
    uint64_t v = stop - t0;
    if (v > INTERVAL_MASK) v = INTERVAL_MASK;
    if (switches_of(&after) != switches_of(&before)) v |= FLAG_OS;
    if (faults_of(&after) != faults_of(&before)) v |= FLAG_FAULT;
    /* CPU time, which spans the interval and the clock reads, against the wall time. */
    if ((double)(stop - t0) / tsc_per_us - (double)(cpu1 - cpu0) / 1000.0 > kStolenUs) v |= FLAG_STOLEN;
    if (n_quanta < MAX_QUANTA) {
      library_cycles[n_quanta] = library;
      intervals[n_quanta++] = v;
    } else
      dropped_quanta++;
  }
  quanta_fn_destroy(f);
  return program_status;
}

int __libc_start_main(main_fn main, int argc, char** argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void* stack_end) {
  start_main_fn real = (start_main_fn)dlsym(RTLD_NEXT, "__libc_start_main");
  if (!real) {
    fprintf(stderr, "task_main: glibc's __libc_start_main not found\n");
    _exit(127);
  }
  program_main = main;
  return real(task_main, argc, argv, init, fini, rtld_fini, stack_end);
}
