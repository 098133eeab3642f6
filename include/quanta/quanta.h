/* quanta application API (C). An application is a set of callbacks, in the style of
 * Concord: a global setup, a per-worker setup, and a request handler that turns one
 * request into one response. The runtime runs every handler call as a preemptible task.
 */
#ifndef QUANTA_QUANTA_H
#define QUANTA_QUANTA_H

#include <stddef.h>
#include <stdint.h>

#include "quanta/probe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A request as the handler sees it. `payload` is owned by the runtime and valid until
 * the handler returns. */
typedef struct quanta_request {
  uint64_t id;
  uint32_t class_index;   /* service-time class, as the source labelled it */
  uint32_t payload_len;
  const void* payload;
} quanta_request;

/* The handler fills this in. `status` 0 means success; anything else is counted as an
 * application error. `value` is a small result the source may check (a checksum). */
typedef struct quanta_response {
  int32_t status;
  uint64_t value;
} quanta_response;

typedef struct quanta_app {
  const char* name;
  /* Called once, on the main thread, before any worker starts. `config` is an app-defined
   * string (may be NULL). Returns 0 on success. */
  int (*setup)(const char* config);
  /* Called once on each worker thread before it takes requests. Returns 0 on success. */
  int (*setup_worker)(int worker_index);
  /* Runs inside a task: may be preempted at any probe. */
  void (*handle_request)(const quanta_request* request, quanta_response* response);
} quanta_app;

/* With --preempt signal or hybrid, a signal may switch away from a task only while the
 * task executes code known to be safe to leave at any instruction: code in the
 * `quanta_text` section (what the compiler pass instruments, or QUANTA_SIGNAL_SAFE
 * functions) and ranges registered here. Elsewhere (libc, say) the preemption waits for
 * the next probe or preempt-enable. Register before the run starts; 0 on success. */
int quanta_register_signal_safe_code(const void* begin, const void* end);
/* Registers the whole executable code of the object (program or shared library) that
 * contains `any_address`, e.g. the address of the app's handler function. */
int quanta_register_signal_safe_object(const void* any_address);

/* Puts a function in the quanta_text section: safe to leave from a preemption signal. */
#define QUANTA_SIGNAL_SAFE __attribute__((section("quanta_text")))

/* Index of the worker running the calling code, or -1 outside workers. */
int quanta_worker_index(void);

#ifdef __cplusplus
}
#endif

#endif /* QUANTA_QUANTA_H */
