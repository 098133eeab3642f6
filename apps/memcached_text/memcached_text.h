/* The memcached text protocol for quanta apps: where a command ends (the server's framer),
 * what it says (the handler's parser), where a reply ends (the load client's framer), and
 * the replies and requests themselves. A key-value app links this file, maps commands to
 * its request classes and runs them; quanta serves the protocol over TCP and, with
 * memcached's UDP frame header, over UDP (quanta/protocol.h).
 *
 * Limits and answers are memcached's (checked against memcached 1.6 itself by
 * tests/python/test_kvcache.py): keys of 1-250 bytes, flags a u32, a command line of at
 * most 2048 bytes (get and gets lines may be as long as the server's request limit, for
 * many keys), a value as large as the server's request limit allows. Bad input gets
 * memcached's own line:
 *   ERROR                                    an unknown command, or a known one with the
 *                                            wrong number of tokens
 *   CLIENT_ERROR bad command line format     tokens that do not parse (a key too long...)
 *   CLIENT_ERROR bad data chunk              a value not followed by \r\n
 *   CLIENT_ERROR invalid exptime argument, CLIENT_ERROR invalid numeric delta argument,
 *   CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]
 *   SERVER_ERROR object too large for cache  a value over the limit (read and thrown away,
 *                                            so its bytes are not taken for commands)
 *   CLIENT_ERROR line too long               no end of line within the limit: the
 *                                            connection is closed
 * Where this differs from memcached: flags of 2^32 or more are a bad line (memcached 1.6
 * stores them cut to 32 bits).
 *
 * Beyond memcached: `scan <start-key> <count>` (count 1..1000000) is the long request of
 * the papers' key-value services: the app answers with the keys from <start-key> on, in its
 * own order, as VALUE lines and END, or a summary (see the app).
 *
 * Every function is pure and bounded by the lengths it is given (fuzzed by
 * tests/fuzz/memcached_text_fuzz.cc). */
#ifndef QUANTA_MEMCACHED_TEXT_H
#define QUANTA_MEMCACHED_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "quanta/quanta.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  MC_MAX_KEY_BYTES = 250,
  MC_MAX_LINE_BYTES = 2048,
  MC_MAX_KEYS = 128,          /* keys of one get/gets the parser returns (more: CLIENT_ERROR) */
  MC_MAX_SCAN_COUNT = 1000000,
};

typedef enum mc_verb {
  MC_GET, MC_GETS, MC_SET, MC_ADD, MC_REPLACE, MC_APPEND, MC_PREPEND, MC_CAS,
  MC_DELETE, MC_INCR, MC_DECR, MC_TOUCH, MC_FLUSH_ALL, MC_VERSION, MC_STATS,
  MC_VERBOSITY, MC_QUIT, MC_SCAN,
  MC_VERB_COUNT
} mc_verb;

/* The name of a verb as the protocol spells it ("get"). */
const char* mc_verb_name(mc_verb verb);

typedef struct mc_key {
  const char* bytes;
  uint32_t len;
} mc_key;

/* One whole command, as the handler sees it. Pointers point into the request's bytes. */
typedef struct mc_command {
  mc_verb verb;
  uint32_t key_count;
  uint32_t flags;           /* storage commands */
  int64_t exptime;          /* storage commands, touch; flush_all's delay (0 if none) */
  uint64_t cas_unique;      /* cas */
  uint64_t number;          /* incr/decr: the delta; verbosity: the level; scan: the count */
  const char* data;         /* storage commands: the value (data_len bytes, no \r\n) */
  uint32_t data_len;
  int noreply;              /* the client wants no answer: write nothing */
  const char* stats_arg;    /* stats: the optional argument (NULL if none) */
  uint32_t stats_arg_len;
  /* Last, and only the first key_count are written: the parser clears the fields above on
   * every command but not these 2 KiB (clearing them cost more than the rest of a GET's
   * parse). */
  mc_key keys[MC_MAX_KEYS]; /* get/gets: every key; others: keys[0] when they take one */
} mc_command;

/* The server's framer, in quanta_protocol's terms: a whole command at the front of
 * `bytes` (QUANTA_FRAME_REQUEST, with `*verb` set and frame->class_index left for the
 * caller to choose), an error line in place of a bad one (QUANTA_FRAME_REJECT), a quit or
 * a line past the limit (QUANTA_FRAME_CLOSE), or QUANTA_FRAME_NEED_MORE. A get or gets of
 * one key gets a frame->note for its handler (mc_command_from_note); other commands 0. */
int mc_frame_request(const void* bytes, uint32_t len, quanta_frame* frame, mc_verb* verb);

/* Parses a command the framer accepted (`len` bytes exactly). Returns 0, or -1 if it is
 * not one (then nothing in `out` is meaningful). */
int mc_parse_command(const void* bytes, uint32_t len, mc_command* out);

/* The command the framer's note describes (quanta_request.frame_note, from mc_frame_request
 * on these `len` bytes), without parsing them again: returns 0 and fills `out` as
 * mc_parse_command would, or -1 when the note describes nothing (0, another app's note, or
 * one that points outside the bytes): then parse with mc_parse_command. */
int mc_command_from_note(const void* bytes, uint32_t len, uint64_t note, mc_command* out);

/* The load client's framer (quanta_protocol.frame_reply): where the reply at the front of
 * `bytes` ends, and whether it is an answer, the overload answer (mc_overloaded_reply)
 * or an error line. */
int mc_frame_reply(const void* bytes, uint32_t len, uint32_t* length, int* kind);

/* The answer to a command the server had no room for: "SERVER_ERROR busy\r\n". */
uint32_t mc_overloaded_reply(void* out, uint32_t capacity);

/* Reply writers for handlers: each appends to the response and returns 0, or -1 when it
 * did not fit (the response is then left as it was). */
int mc_reply_line(quanta_response* response, const char* line);           /* "STORED" -> "STORED\r\n" */
int mc_reply_value(quanta_response* response, const mc_key* key, uint32_t flags, const void* data, uint32_t len,
                   const uint64_t* cas_unique);                             /* one VALUE block (NULL cas: get) */
int mc_reply_number(quanta_response* response, uint64_t value);          /* incr/decr: "42\r\n" */

/* Request builders for make_request: a get of one key, a set of a value. Return the
 * length written, or 0 when it does not fit in `capacity`. */
uint32_t mc_build_get(char* out, uint32_t capacity, const char* key, uint32_t key_len);
uint32_t mc_build_set(char* out, uint32_t capacity, const char* key, uint32_t key_len, const void* value,
                      uint32_t value_len);
uint32_t mc_build_scan(char* out, uint32_t capacity, const char* key, uint32_t key_len, uint32_t count);
uint32_t mc_build_delete(char* out, uint32_t capacity, const char* key, uint32_t key_len);

/* stats with an argument: whether it is `word`; and whether it names one of memcached's
 * sections about its slab allocator and connections (settings, items, slabs, sizes,
 * conns), which a server without them answers with an empty list ("END"). */
int mc_stats_arg_is(const mc_command* c, const char* word);
int mc_stats_section_without_contents(const mc_command* c);

/* The request classes a cache app serves, in the order of its class table: gets (get,
 * gets), stores (set, add, replace, append, prepend, cas), scans, deletes, and every other
 * command. */
enum { MC_CLASS_GET, MC_CLASS_SET, MC_CLASS_SCAN, MC_CLASS_DELETE, MC_CLASS_OTHER, MC_CLASS_COUNT };
uint32_t mc_class_of(mc_verb verb);
/* mc_frame_request with frame->class_index set by mc_class_of: a quanta_protocol's
 * frame_request as it is. */
int mc_frame_classified(const void* bytes, uint32_t len, quanta_frame* frame);
/* make_request's bytes for a request of class `class_index` on `key`: a get, a set of
 * `value` (value_len bytes), a scan of `scan_count` items, a delete, or a "version" for any
 * other class. Returns the length, or 0 when it does not fit. */
uint32_t mc_build_for_class(uint32_t class_index, char* out, uint32_t capacity, const char* key, uint32_t key_len,
                            const void* value, uint32_t value_len, uint32_t scan_count);

#ifdef __cplusplus
}
#endif

#endif /* QUANTA_MEMCACHED_TEXT_H */
