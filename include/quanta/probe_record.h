/* The record the quanta pass leaves in section "quanta_probes" of every object it
 * instruments, so that a linked program (or a tool reading its file) can still tell which
 * object was compiled with which probe kind and how many probes it got.
 *
 * The layout is fixed: 128 bytes with no padding, in the machine's byte order (little
 * endian), each record placed on an 8-byte boundary. The linker concatenates the
 * objects' sections; with every record the same size and alignment they end up back to
 * back, so a reader walks the section from __start_quanta_probes to
 * __stop_quanta_probes (in the program) or over its bytes (in the file) one
 * sizeof(struct quanta_probe_record) at a time: bench/kernels/harness.c in the program,
 * src/runtime/probe_records.cc (`quanta probes`) in the file.
 *
 * The pass (pass/ProbeRecord.cpp) builds the record as an LLVM constant struct, field by
 * field, and static_asserts each offset against this header. A changed field means a
 * new version number.
 */
#ifndef QUANTA_PROBE_RECORD_H
#define QUANTA_PROBE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "QPRB" as it reads in a hex dump of the section (bytes 'Q' 'P' 'R' 'B'). */
#define QUANTA_PROBE_RECORD_MAGIC 0x42525051u
#define QUANTA_PROBE_RECORD_VERSION 1u
#define QUANTA_PROBE_RECORD_SECTION "quanta_probes"

/* Probe kind of the object. 0: the pass only bracketed lock calls (pipeline quanta-locks),
 * the object has no probes. The others match -quanta-mode. */
enum quanta_probe_record_mode {
  QUANTA_PROBE_MODE_LOCKS_ONLY = 0,
  QUANTA_PROBE_MODE_CLOCK = 1,
  QUANTA_PROBE_MODE_FLAG = 2,
  QUANTA_PROBE_MODE_COUNTER = 3,
};

enum { QUANTA_PROBE_RECORD_MODULE_BYTES = 104 };

struct quanta_probe_record {
  uint32_t magic;      /* QUANTA_PROBE_RECORD_MAGIC */
  uint16_t version;    /* QUANTA_PROBE_RECORD_VERSION */
  uint16_t mode;       /* enum quanta_probe_record_mode */
  uint32_t probes;     /* static probe sites placed in the object */
  uint32_t lock_sites; /* lock calls bracketed with preempt disable/enable */
  uint32_t functions;  /* functions the pass instrumented */
  /* Flag mode: clock twins of its functions (include/quanta/flag_twins.h), counted
   * apart from `functions` and `probes`. The word was reserved as 0 before twins existed,
   * and 0 still reads right for those objects (no twins), so it took no new version. */
  uint32_t twins;
  /* The tail of the object's source file name, NUL-terminated: a longer name keeps its
   * last QUANTA_PROBE_RECORD_MODULE_BYTES - 1 bytes (the file name end is what tells
   * objects apart). */
  char module[QUANTA_PROBE_RECORD_MODULE_BYTES];
};

/* The pass lays the fields out by hand: these pin what it assumes. */
#ifdef __cplusplus
#define QUANTA_PROBE_RECORD_ASSERT static_assert
#else
#define QUANTA_PROBE_RECORD_ASSERT _Static_assert
#endif
QUANTA_PROBE_RECORD_ASSERT(sizeof(struct quanta_probe_record) == 128, "a record is 128 bytes");
QUANTA_PROBE_RECORD_ASSERT(offsetof(struct quanta_probe_record, module) == 24, "module[] starts at byte 24");
#undef QUANTA_PROBE_RECORD_ASSERT

#ifdef __cplusplus
}
#endif

#endif /* QUANTA_PROBE_RECORD_H */
