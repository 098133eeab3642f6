/* quanta's default wire protocol: how `quanta serve` frames requests and replies for apps
 * that have no protocol of their own, and how `quanta load` speaks to it.
 *
 * Every integer is little-endian. A request is a 16-byte header and its payload; a reply is
 * a 32-byte header and its response bytes. Over UDP one datagram carries exactly one
 * request (or one reply); over TCP requests follow each other on the stream, and the
 * replies of one connection come back in the order of its requests.
 *
 *   request header                        reply header
 *   0  u16 magic  QUANTA_WIRE_REQUEST      0  u16 magic  QUANTA_WIRE_REPLY
 *   2  u16 class  the app's class index    2  u16 kind   QUANTA_WIRE_OK / _OVERLOADED / _BAD_REQUEST
 *   4  u32 payload_len                     4  u32 response_len (0 unless kind is OK)
 *   8  u64 request_id (echoed)             8  u64 request_id (as sent; 0 if the header was unreadable)
 *                                          16 u64 value   (the handler's response value)
 *                                          24 i32 status  (the handler's response status)
 *                                          28 u32 reserved, 0
 */
#ifndef QUANTA_WIRE_H
#define QUANTA_WIRE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  QUANTA_WIRE_REQUEST = 0x5131, /* "1Q" on the wire */
  QUANTA_WIRE_REPLY = 0x5231,   /* "1R" */
  QUANTA_WIRE_REQUEST_HEADER = 16,
  QUANTA_WIRE_REPLY_HEADER = 32,
};

/* The kind of a reply. */
enum {
  QUANTA_WIRE_OK = 0,           /* the handler ran; its response follows */
  QUANTA_WIRE_OVERLOADED = 1,   /* the server had no room for it: not run */
  QUANTA_WIRE_BAD_REQUEST = 2,  /* malformed (bad magic, class out of range, too large): not run */
};

typedef struct quanta_wire_request {
  uint16_t class_index;
  uint32_t payload_len;
  uint64_t request_id;
} quanta_wire_request;

typedef struct quanta_wire_reply {
  uint16_t kind;
  uint32_t response_len;
  uint64_t request_id;
  uint64_t value;
  int32_t status;
} quanta_wire_reply;

static inline void quanta_wire_put16(unsigned char* p, uint16_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static inline void quanta_wire_put32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static inline void quanta_wire_put64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static inline uint16_t quanta_wire_get16(const unsigned char* p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t quanta_wire_get32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
static inline uint64_t quanta_wire_get64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

/* Writes the 16-byte request header. */
static inline void quanta_wire_encode_request(unsigned char out[QUANTA_WIRE_REQUEST_HEADER], const quanta_wire_request* r) {
  quanta_wire_put16(out, QUANTA_WIRE_REQUEST);
  quanta_wire_put16(out + 2, r->class_index);
  quanta_wire_put32(out + 4, r->payload_len);
  quanta_wire_put64(out + 8, r->request_id);
}

/* Reads a request header from `len` bytes: 1 when it is one, 0 when fewer than 16 bytes
 * have come (wait for more), -1 when the magic is wrong (not this protocol). */
static inline int quanta_wire_decode_request(const unsigned char* in, uint32_t len, quanta_wire_request* out) {
  if (len < QUANTA_WIRE_REQUEST_HEADER) return 0;
  if (quanta_wire_get16(in) != QUANTA_WIRE_REQUEST) return -1;
  out->class_index = quanta_wire_get16(in + 2);
  out->payload_len = quanta_wire_get32(in + 4);
  out->request_id = quanta_wire_get64(in + 8);
  return 1;
}

/* Writes the 32-byte reply header. */
static inline void quanta_wire_encode_reply(unsigned char out[QUANTA_WIRE_REPLY_HEADER], const quanta_wire_reply* r) {
  quanta_wire_put16(out, QUANTA_WIRE_REPLY);
  quanta_wire_put16(out + 2, r->kind);
  quanta_wire_put32(out + 4, r->response_len);
  quanta_wire_put64(out + 8, r->request_id);
  quanta_wire_put64(out + 16, r->value);
  quanta_wire_put32(out + 24, (uint32_t)r->status);
  quanta_wire_put32(out + 28, 0);
}

/* Reads a reply header: 1, 0 (fewer than 32 bytes) or -1 (wrong magic or unknown kind). */
static inline int quanta_wire_decode_reply(const unsigned char* in, uint32_t len, quanta_wire_reply* out) {
  if (len < QUANTA_WIRE_REPLY_HEADER) return 0;
  if (quanta_wire_get16(in) != QUANTA_WIRE_REPLY) return -1;
  out->kind = quanta_wire_get16(in + 2);
  if (out->kind > QUANTA_WIRE_BAD_REQUEST) return -1;
  out->response_len = quanta_wire_get32(in + 4);
  out->request_id = quanta_wire_get64(in + 8);
  out->value = quanta_wire_get64(in + 16);
  out->status = (int32_t)quanta_wire_get32(in + 24);
  return 1;
}

#ifdef __cplusplus
}
#endif

#endif /* QUANTA_WIRE_H */
