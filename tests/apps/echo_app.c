/* A test app for `quanta serve`: class 0 ("echo") answers with its payload and the
 * payload's length as the value; class 1 ("spin_echo") first spins for the cycles in its
 * payload's first 8 bytes, then echoes the same way, so that requests finish out of the
 * order they came in when several workers serve them; class 2 ("echo_twice") answers with
 * its payload twice, so a reply can be larger than any request (one the kernel refuses). Built without probes: it serves
 * under every mechanism (preempted only by signal). */
#include <stdint.h>
#include <string.h>
#include <x86intrin.h>

#include "quanta/quanta.h"

static void echo_handle(const quanta_request* request, quanta_response* response) {
  if (request->class_index == 1 && request->payload_len >= sizeof(uint64_t)) {
    uint64_t cycles = 0;
    memcpy(&cycles, request->payload, sizeof cycles);
    const uint64_t until = __rdtsc() + cycles;
    while (__rdtsc() < until) {
    }
  }
  response->value = request->payload_len;
  response->status = quanta_response_append(response, request->payload, request->payload_len) == 0 ? 0 : 1;
  if (request->class_index == 2 && response->status == 0)
    response->status = quanta_response_append(response, request->payload, request->payload_len) == 0 ? 0 : 1;
}

static int echo_make_request(const quanta_request_spec* spec, void* buffer, uint32_t capacity, uint32_t* len) {
  if (capacity < sizeof(uint64_t)) return -1;
  const uint64_t zero_cycles = 0;
  memcpy(buffer, &zero_cycles, sizeof zero_cycles);
  (void)spec;
  *len = sizeof zero_cycles;
  return 0;
}

static const quanta_class kEchoClasses[] = {
    {.name = "echo", .share = 1.0, .service_us = 0},
    {.name = "spin_echo", .share = 1.0, .service_us = 0},
    {.name = "echo_twice", .share = 0.0, .service_us = 0},
};

static const quanta_app kEcho = {
    .abi_version = QUANTA_APP_ABI_VERSION,
    .name = "echo",
    .handle_request = echo_handle,
    .classes = kEchoClasses,
    .class_count = 3,
    .make_request = echo_make_request,
};

QUANTA_APP_EXPORT(kEcho)
