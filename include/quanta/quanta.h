/* quanta application API (C). An application is a set of callbacks, in the style of
 * Concord: a global setup that receives the user's configuration string, a per-worker
 * setup, a request handler that turns one request's bytes into one response's bytes, and
 * teardowns. The runtime runs every handler call as a preemptible task.
 *
 * An app is either linked into a program that drives the runtime itself (quanta/runtime.h)
 * or built as a shared object that exports QUANTA_APP_EXPORT(app) and is run by
 * `quanta run --app PATH.so`. For the in-process generator, the app also says which
 * request classes it serves and how to build a request of each (make_request).
 */
#ifndef QUANTA_QUANTA_H
#define QUANTA_QUANTA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "quanta/probe.h"
#include "quanta/protocol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever quanta_app, or a struct the runtime and the app share, changes shape.
 * The runtime takes apps built for this version, for version 3 (the same quanta_app; its
 * framer and handler know nothing of the frame note, which stays 0 for them) and for
 * version 2 (which ended before `protocol`: such an app has no protocol of its own); it
 * refuses any other. Version 4 added quanta_frame.note and quanta_request.frame_note: an
 * app built for it must not run on an older runtime, whose structs end before them. */
#define QUANTA_APP_ABI_VERSION 4u

/* A request as the handler sees it. `payload` is owned by the runtime and valid until
 * the handler returns. */
typedef struct quanta_request {
  uint64_t id;            /* unique per source, counting from 0 */
  uint32_t class_index;   /* the class the source labelled it with */
  uint32_t payload_len;
  const void* payload;
  /* What the protocol's framer noted of this request (quanta_frame.note; app ABI 4), or 0:
   * no note, the handler parses the payload itself. */
  uint64_t frame_note;
} quanta_request;

/* What the handler fills in. `data` is a runtime-owned buffer of `capacity` bytes (the
 * runtime's max_response_bytes) that the handler writes its response into, setting `len`.
 * `status` 0 means success; anything else is counted as an application error. `value` is
 * a small numeric result that costs no buffer (a checksum, a count). */
typedef struct quanta_response {
  int32_t status;
  uint32_t len;
  uint64_t value;
  void* data;
  uint32_t capacity;
} quanta_response;

/* Appends `n` bytes to the response. Returns 0, or -1 (and writes nothing) when they do
 * not fit in the response buffer. */
static inline int quanta_response_append(quanta_response* response, const void* bytes, size_t n) {
  if (n > (size_t)(response->capacity - response->len)) return -1;
  memcpy((char*)response->data + response->len, bytes, n);
  response->len += (uint32_t)n;
  return 0;
}

/* One request class an app serves, for the generator and the statistics. */
typedef struct quanta_class {
  const char* name;     /* label in reports and --max-load objectives ("get", "scan") */
  double share;         /* how often the generator draws it, relative to the other classes */
  double service_us;    /* nominal CPU time of one request if known (slowdown uses it), else 0 */
} quanta_class;

/* What the generator asks make_request to build. */
typedef struct quanta_request_spec {
  uint64_t id;          /* the request's id */
  uint32_t class_index; /* the class the generator drew */
  uint32_t service_ns;  /* with --workload: the service time drawn for it (the spin app spins that
                           long); 0 with the app's own classes */
  uint64_t* rng;        /* a seeded random stream: advance it with quanta_random(rng) */
} quanta_request_spec;

/* splitmix64: the next number of the stream `state` (reproducible per seed). */
static inline uint64_t quanta_random(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

typedef struct quanta_app {
  uint32_t abi_version;  /* QUANTA_APP_ABI_VERSION */
  const char* name;
  /* Called once, on the thread that starts the runtime, before any worker starts.
   * `config` is the user's configuration string (--app-config; "" if none). Returns 0 on
   * success. May be NULL. */
  int (*setup)(const char* config);
  /* Called once on each worker thread before it takes requests. Returns 0 on success. May
   * be NULL. */
  int (*setup_worker)(int worker_index);
  /* Runs inside a task: may be preempted at any probe. Required. */
  void (*handle_request)(const quanta_request* request, quanta_response* response);
  /* Called on each worker thread once it has finished its last request, then once on the
   * thread that stops the runtime. Either may be NULL. */
  void (*teardown_worker)(int worker_index);
  void (*teardown)(void);
  /* The classes the app serves, in class_index order; the generator draws them by share.
   * NULL/0: the app takes its classes from the workload (--workload), like the spin app.
   * `quanta load` reads the shares after setup(config), so setup may set them from its
   * configuration; `quanta run` draws its schedule before the runtime starts, so it
   * reads them before setup. */
  const quanta_class* classes;
  uint32_t class_count;
  /* Builds the payload of one generated request into `buffer` (`capacity` bytes), sets
   * `*len` and returns 0; non-zero means it could not (the generator counts it as failed).
   * Called on the dispatcher's thread. Needed only to run the app with the generator. */
  int (*make_request)(const quanta_request_spec* spec, void* buffer, uint32_t capacity, uint32_t* len);
  /* The app's own wire protocol for `quanta serve` and `quanta load` (quanta/protocol.h).
   * NULL: quanta's default protocol (quanta/wire.h), in which make_request builds only the
   * payload; with a protocol, make_request builds the whole request as sent. */
  const quanta_protocol* protocol;
} quanta_app;

/* A shared object run by `quanta run --app` exports exactly this function. */
#define QUANTA_APP_ENTRY_SYMBOL "quanta_app_entry"
typedef const quanta_app* (*quanta_app_entry_fn)(void);

#ifdef __cplusplus
#define QUANTA_EXTERN_C extern "C"
#else
#define QUANTA_EXTERN_C
#endif
/* Exports `app` (a quanta_app object) as this shared object's app. */
#define QUANTA_APP_EXPORT(app) \
  QUANTA_EXTERN_C __attribute__((visibility("default"))) const quanta_app* quanta_app_entry(void) { return &(app); }

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
