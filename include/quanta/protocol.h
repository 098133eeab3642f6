/* An app's own wire protocol: how `quanta serve` finds where each request ends in the
 * bytes a client sent, and how `quanta load` finds where each reply ends. An app without
 * one is served in quanta's default protocol (quanta/wire.h), which wraps every request and
 * reply in a small binary header; an app with one (say, the memcached text protocol) is
 * served in its own, so that its own clients can talk to it.
 *
 * With a protocol, the bytes are the app's: the handler gets a whole request's bytes as
 * its payload (command line and data, say) and the response bytes it writes are sent
 * back as they are, nothing added. A response of 0 bytes sends nothing (memcached's
 * `noreply`). Over TCP the replies of one connection go out in the order of its requests.
 *
 * Every callback here runs on the dispatcher's thread (server) or the client's send loop
 * (quanta load), between requests, so it must be quick and must not block; it may not
 * keep the pointers it is given. Framers see untrusted bytes: they must never read past
 * `len`. */
#ifndef QUANTA_PROTOCOL_H
#define QUANTA_PROTOCOL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What frame_request found at the front of the bytes. */
enum {
  QUANTA_FRAME_NEED_MORE = 0, /* no whole request yet: wait for more bytes (TCP) */
  QUANTA_FRAME_REQUEST = 1,   /* a whole request: `length` bytes of class `class_index` */
  QUANTA_FRAME_REJECT = 2,    /* `length` bytes (at least 1) that are not a request the app will
                                 run: send the `reply_len` bytes written to `reply` in its
                                 place (0: send nothing) and go on after them */
  QUANTA_FRAME_CLOSE = 3,     /* the connection ends here (garbage that cannot be skipped, a line
                                 over the limit, a "quit"): send the reply bytes, if any, after
                                 the replies still due, then close. Over UDP: send, no more. */
};

/* Room the server gives frame_request for a reject or close reply. */
#define QUANTA_FRAME_REPLY_CAPACITY 128u

typedef struct quanta_frame {
  /* In: the most request bytes the server will hold (its --max-payload-bytes). A request
   * that would be longer must be rejected (or the connection closed) rather than answered
   * NEED_MORE, since the bytes cannot all be buffered. */
  uint32_t max_request_bytes;
  /* Out. */
  uint32_t length;      /* REQUEST, REJECT: bytes at the front that it takes */
  uint32_t class_index; /* REQUEST: the class it belongs to (< the app's class count) */
  uint32_t reply_len;   /* REJECT, CLOSE: bytes written to `reply` */
  uint32_t discard;     /* REJECT: bytes after the `length` ones, not all here yet, that the
                           server reads and throws away as they come (the data block of a
                           value too large to buffer, which memcached swallows). TCP only. */
  unsigned char reply[QUANTA_FRAME_REPLY_CAPACITY];
  /* REQUEST, optional: what the framer learnt of the request that its handler can use, in
   * the app's own encoding (say, where a get's key is). The server zeroes it before the
   * call and hands it unchanged to the handler of this request (quanta_request.frame_note),
   * so that the handler need not parse again what the framer already did. Offsets in it
   * are from the first byte framed, which is the handler's payload's first byte. 0 means
   * nothing; requests no framer saw (generated, submitted through the API) carry 0. Apps
   * that set it need a runtime of app ABI version 4 or later (quanta.h). */
  uint64_t note;
} quanta_frame;

/* What frame_reply says about a reply; the same numbers as quanta/wire.h's reply kinds. */
enum {
  QUANTA_REPLY_OK = 0,          /* the handler's answer */
  QUANTA_REPLY_OVERLOADED = 1,  /* the server's answer when it had no room (overloaded_reply) */
  QUANTA_REPLY_ERROR = 2,       /* the protocol's error for a request it could not read */
};

/* How datagrams are framed over UDP. */
enum {
  /* A datagram is exactly one request's bytes, a reply exactly one response. A client then
   * cannot tell which request a reply answers, so `quanta load` does not drive it over UDP. */
  QUANTA_DATAGRAM_PLAIN = 0,
  /* memcached's UDP frame header before the bytes of every datagram: request id, sequence
   * number, datagram count, reserved (4 x u16, big-endian). A request must fit one datagram;
   * a reply is cut into datagrams of at most 1400 bytes, each with the request's id. */
  QUANTA_DATAGRAM_MEMCACHED = 1,
};

/* Protocol flags. */
enum {
  /* A TCP connection's requests run one at a time, in the order they came, as memcached
   * runs them: a command sees the effects of every command sent before it on its
   * connection (a get after a `set ... noreply`). Without it a connection's pipelined
   * requests may run at once on several workers, or interleaved by preemption; only their
   * replies keep the order. Clients get parallelism from several connections. */
  QUANTA_PROTOCOL_IN_ORDER = 1u << 0,
};

typedef struct quanta_protocol {
  const char* name;
  /* Server: frames the request at the front of `bytes` (`len` > 0 bytes: what a TCP
   * connection sent and is not framed yet, or one datagram's bytes). Returns a
   * QUANTA_FRAME_* value and fills `frame`. Required. */
  int (*frame_request)(const void* bytes, uint32_t len, quanta_frame* frame);
  /* Server: writes the protocol's answer to a request the server had no room for into
   * `out` (`capacity` bytes) and returns its length; 0 sends nothing (the client times
   * out). May be NULL: nothing is sent. */
  uint32_t (*overloaded_reply)(void* out, uint32_t capacity);
  /* Client: where the reply at the front of `bytes` ends. Returns 1 and sets `*length`
   * and `*kind` (QUANTA_REPLY_*), 0 when more bytes are needed, -1 when the bytes are not a
   * reply of this protocol. Needed only to drive the app with `quanta load`. */
  int (*frame_reply)(const void* bytes, uint32_t len, uint32_t* length, int* kind);
  uint32_t datagram; /* QUANTA_DATAGRAM_* */
  uint32_t flags;    /* QUANTA_PROTOCOL_* */
} quanta_protocol;

#ifdef __cplusplus
}
#endif

#endif /* QUANTA_PROTOCOL_H */
