/* An app built against app ABI version 2, the shape quanta_app had before `protocol`
 * (include/quanta/quanta.h): the runtime must still load it and serve it in the default
 * protocol, without reading past the object. The struct is declared here with exactly the
 * version-2 fields, as an old build of quanta.h would have made it.
 *
 * The object is followed by a poison pointer where version 3 keeps `protocol`: a runtime
 * that read that field from this app would take the poison for a protocol and crash,
 * rather than happen to read a zero.
 *
 * Built a second time with -DABI2_APP_VERSION=99 (tests/CMakeLists.txt) as an app of a
 * version no runtime takes, which must be refused. */
#include <stdint.h>

#include "quanta/quanta.h"

#ifndef ABI2_APP_VERSION
#define ABI2_APP_VERSION 2u
#endif

typedef struct quanta_app_v2 {
  uint32_t abi_version;
  const char* name;
  int (*setup)(const char* config);
  int (*setup_worker)(int worker_index);
  void (*handle_request)(const quanta_request* request, quanta_response* response);
  void (*teardown_worker)(int worker_index);
  void (*teardown)(void);
  const quanta_class* classes;
  uint32_t class_count;
  int (*make_request)(const quanta_request_spec* spec, void* buffer, uint32_t capacity, uint32_t* len);
} quanta_app_v2;

/* Answers with its payload backwards and the payload's length + 1000 as the value, so a
 * test can tell this app's answers from the echo app's. */
static void abi2_handle(const quanta_request* request, quanta_response* response) {
  const unsigned char* in = (const unsigned char*)request->payload;
  for (uint32_t i = 0; i < request->payload_len; ++i) {
    const unsigned char c = in[request->payload_len - 1 - i];
    if (quanta_response_append(response, &c, 1) != 0) {
      response->status = 1;
      return;
    }
  }
  response->value = 1000u + request->payload_len;
}

static int abi2_make_request(const quanta_request_spec* spec, void* buffer, uint32_t capacity, uint32_t* len) {
  (void)spec;
  if (capacity < 4) return -1;
  __builtin_memcpy(buffer, "abcd", 4);
  *len = 4;
  return 0;
}

static const quanta_class kClasses[] = {{.name = "reverse", .share = 1.0, .service_us = 0}};

static const struct {
  quanta_app_v2 app;
  const void* poison; /* where version 3's `protocol` would be */
} kApp = {
    .app =
        {
            .abi_version = ABI2_APP_VERSION,
            .name = "abi2",
            .handle_request = abi2_handle,
            .classes = kClasses,
            .class_count = 1,
            .make_request = abi2_make_request,
        },
    .poison = (const void*)0x1,
};

_Static_assert(sizeof(quanta_app_v2) == __builtin_offsetof(quanta_app, protocol),
               "version 2 ends where version 3 adds protocol");

__attribute__((visibility("default"))) const quanta_app* quanta_app_entry(void) {
  return (const quanta_app*)&kApp.app;
}
