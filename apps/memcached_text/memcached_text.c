/* The memcached text protocol: framing, parsing, replies (memcached_text.h). */
#include "memcached_text.h"
#include <stddef.h>

#include <stdio.h>
#include <string.h>

/* Each verb with its length, so that finding a verb (verb_of) compares bytes only where the
 * length and the first byte agree, with no strlen per verb tried. */
typedef struct verb_name {
  const char* name;
  uint32_t len;
} verb_name;
#define VERB(s) {s, sizeof(s) - 1}
static const verb_name kVerbs[MC_VERB_COUNT] = {
    VERB("get"),    VERB("gets"),  VERB("set"),  VERB("add"),   VERB("replace"),   VERB("append"),
    VERB("prepend"), VERB("cas"),  VERB("delete"), VERB("incr"), VERB("decr"),     VERB("touch"),
    VERB("flush_all"), VERB("version"), VERB("stats"), VERB("verbosity"), VERB("quit"), VERB("scan")};
#undef VERB

const char* mc_verb_name(mc_verb verb) { return verb < MC_VERB_COUNT ? kVerbs[verb].name : "?"; }

static const char kBadFormat[] = "CLIENT_ERROR bad command line format\r\n";
static const char kUnknown[] = "ERROR\r\n";
static const char kTooLarge[] = "SERVER_ERROR object too large for cache\r\n";
static const char kBadChunk[] = "CLIENT_ERROR bad data chunk\r\n";
static const char kLineTooLong[] = "CLIENT_ERROR line too long\r\n";
static const char kBadDelta[] = "CLIENT_ERROR invalid numeric delta argument\r\n";
static const char kBusy[] = "SERVER_ERROR busy\r\n";
static const char kBadDelete[] = "CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]\r\n";
static const char kBadExptime[] = "CLIENT_ERROR invalid exptime argument\r\n";

/* ---- tokens and numbers ---- */

enum { MAX_TOKENS = MC_MAX_KEYS + 2 };

typedef struct token {
  const char* p;
  uint32_t len;
} token;

/* Splits `line` at spaces into `tokens` (room for `capacity`); returns the token count, or
 * capacity + 1 when there are more. A token's end is found with memchr rather than byte by
 * byte: a key is typically 10-250 bytes, and the byte loop was most of a GET's parse. */
static uint32_t split(const char* line, uint32_t len, token* tokens, uint32_t capacity) {
  uint32_t n = 0;
  const char* p = line;
  const char* const end = line + len;
  while (p < end) {
    if (*p == ' ') {
      ++p;
      continue;
    }
    const char* space = memchr(p, ' ', (size_t)(end - p));
    const char* stop = space != NULL ? space : end;
    if (n == capacity) return capacity + 1;
    tokens[n].p = p;
    tokens[n].len = (uint32_t)(stop - p);
    ++n;
    p = stop;
  }
  return n;
}

static int is(const token* t, const char* word) {
  const size_t n = strlen(word);
  return t->len == n && memcmp(t->p, word, n) == 0;
}

/* An unsigned decimal that fits `max`. */
static int parse_u64(const token* t, uint64_t max, uint64_t* out) {
  if (t->len == 0 || t->len > 20) return -1;
  uint64_t v = 0;
  for (uint32_t i = 0; i < t->len; ++i) {
    const char c = t->p[i];
    if (c < '0' || c > '9') return -1;
    const uint64_t digit = (uint64_t)(c - '0');
    if (v > (max - digit) / 10) return -1;
    v = v * 10 + digit;
  }
  *out = v;
  return 0;
}

/* A signed decimal (exptime may be negative: expired at once). */
static int parse_i64(const token* t, int64_t* out) {
  token rest = *t;
  int negative = 0;
  if (rest.len > 0 && rest.p[0] == '-') {
    negative = 1;
    ++rest.p;
    --rest.len;
  }
  uint64_t v = 0;
  if (parse_u64(&rest, (uint64_t)INT64_MAX, &v) != 0) return -1;
  *out = negative ? -(int64_t)v : (int64_t)v;
  return 0;
}

/* memcached's server checks a key's length only (the tokenizer already split at spaces). */
static int valid_key(const token* t) { return t->len > 0 && t->len <= MC_MAX_KEY_BYTES; }

static mc_verb verb_of(const token* t) {
  for (int v = 0; v < MC_VERB_COUNT; ++v) {
    if (t->len == kVerbs[v].len && t->p[0] == kVerbs[v].name[0] && memcmp(t->p, kVerbs[v].name, t->len) == 0) {
      return (mc_verb)v;
    }
  }
  return MC_VERB_COUNT;
}

static int is_storage(mc_verb v) { return v >= MC_SET && v <= MC_CAS; }

/* ---- the command line ---- */

/* What a command line says, data aside. `error` is the line to answer when it is not a
 * command; `value_bytes` is a storage command's value length. */
typedef struct line_verdict {
  const char* error;        /* NULL: a command */
  uint64_t value_bytes;
} line_verdict;

static void set_key(mc_command* cmd, const token* t) {
  cmd->keys[0].bytes = t->p;
  cmd->keys[0].len = t->len;
  cmd->key_count = 1;
}

/* Sets noreply when the token at `at` (if any) is "noreply"; any other token there is
 * ignored, as memcached does. */
static void optional_noreply(const token* tokens, uint32_t n, uint32_t at, mc_command* cmd) {
  if (n > at && is(&tokens[at], "noreply")) cmd->noreply = 1;
}

/* What memcached answers: a known command with the wrong number of tokens is "ERROR", as
 * an unknown one is; tokens of the right count that do not parse are a CLIENT_ERROR. */
static line_verdict parse_line(const char* line, uint32_t len, mc_command* cmd) {
  line_verdict v = {kUnknown, 0};
  token tokens[MAX_TOKENS];
  memset(cmd, 0, offsetof(mc_command, keys));
  const uint32_t n = split(line, len, tokens, MAX_TOKENS);
  if (n == 0) return v;
  cmd->verb = verb_of(&tokens[0]);
  if (cmd->verb == MC_VERB_COUNT) return v;
  if (n > MAX_TOKENS) {
    v.error = kBadFormat;
    return v;
  }
  uint64_t u = 0;
  switch (cmd->verb) {
    case MC_GET:
    case MC_GETS:
      if (n < 2) return v;
      v.error = kBadFormat;
      /* split() takes up to MAX_TOKENS tokens: the verb and one key more than keys[]
       * holds. That many keys is a bad line, not a write past keys[]. */
      if (n - 1 > MC_MAX_KEYS) return v;
      for (uint32_t i = 1; i < n; ++i) {
        if (!valid_key(&tokens[i])) return v;
        cmd->keys[i - 1].bytes = tokens[i].p;
        cmd->keys[i - 1].len = tokens[i].len;
      }
      cmd->key_count = n - 1;
      break;
    case MC_SET:
    case MC_ADD:
    case MC_REPLACE:
    case MC_APPEND:
    case MC_PREPEND:
    case MC_CAS: {
      const uint32_t fields = cmd->verb == MC_CAS ? 6 : 5;
      if (n < fields || n > fields + 1) return v;
      v.error = kBadFormat;
      /* As memcached: a length past INT32_MAX - 2 is a bad line. */
      if (!valid_key(&tokens[1]) || parse_u64(&tokens[2], UINT32_MAX, &u) != 0 ||
          parse_i64(&tokens[3], &cmd->exptime) != 0 || parse_u64(&tokens[4], INT32_MAX - 2, &v.value_bytes) != 0) {
        return v;
      }
      cmd->flags = (uint32_t)u;
      cmd->data_len = (uint32_t)v.value_bytes;
      if (cmd->verb == MC_CAS && parse_u64(&tokens[5], UINT64_MAX, &cmd->cas_unique) != 0) return v;
      optional_noreply(tokens, n, fields, cmd);
      set_key(cmd, &tokens[1]);
      break;
    }
    case MC_DELETE: {
      /* "delete <key> [0] [noreply]": the old hold time is taken only as 0. */
      if (n < 2 || n > 4) return v;
      v.error = kBadDelete;
      if (!valid_key(&tokens[1])) {
        v.error = kBadFormat;
        return v;
      }
      const int zero = n > 2 && is(&tokens[2], "0");
      optional_noreply(tokens, n, n - 1, cmd);
      if (n > 2 && !cmd->noreply && !zero) return v;
      if (n == 4 && !(zero && cmd->noreply)) return v;
      if (n == 2) cmd->noreply = 0;
      set_key(cmd, &tokens[1]);
      break;
    }
    case MC_INCR:
    case MC_DECR:
      if (n < 3 || n > 4) return v;
      v.error = kBadFormat;
      if (!valid_key(&tokens[1])) return v;
      if (parse_u64(&tokens[2], UINT64_MAX, &cmd->number) != 0) {
        v.error = kBadDelta;
        return v;
      }
      optional_noreply(tokens, n, 3, cmd);
      set_key(cmd, &tokens[1]);
      break;
    case MC_TOUCH:
      if (n < 3 || n > 4) return v;
      v.error = kBadFormat;
      if (!valid_key(&tokens[1])) return v;
      if (parse_i64(&tokens[2], &cmd->exptime) != 0) {
        v.error = kBadExptime;
        return v;
      }
      optional_noreply(tokens, n, 3, cmd);
      set_key(cmd, &tokens[1]);
      break;
    case MC_FLUSH_ALL:
      if (n > 3) return v;
      optional_noreply(tokens, n, n - 1, cmd);
      if (n > 1 && !(n == 2 && cmd->noreply) && parse_i64(&tokens[1], &cmd->exptime) != 0) {
        v.error = kBadExptime;
        return v;
      }
      break;
    case MC_VERSION:
    case MC_QUIT:
      break; /* further tokens are ignored */
    case MC_STATS:
      if (n > 2) return v;
      if (n == 2) {
        cmd->stats_arg = tokens[1].p;
        cmd->stats_arg_len = tokens[1].len;
      }
      break;
    case MC_VERBOSITY:
      /* The level is not checked (memcached takes whatever strtoul makes of it). */
      if (n < 2 || n > 3) return v;
      optional_noreply(tokens, n, n - 1, cmd);
      break;
    case MC_SCAN:
      if (n != 3) return v;
      v.error = kBadFormat;
      if (!valid_key(&tokens[1]) || parse_u64(&tokens[2], MC_MAX_SCAN_COUNT, &cmd->number) != 0 ||
          cmd->number == 0) {
        return v;
      }
      set_key(cmd, &tokens[1]);
      break;
    case MC_VERB_COUNT:
      return v;
  }
  v.error = NULL;
  return v;
}

/* ---- the server's framer ---- */

static int answer(quanta_frame* frame, int verdict, uint64_t length, const char* reply) {
  frame->length = (uint32_t)length;
  const size_t n = reply != NULL ? strlen(reply) : 0;
  memcpy(frame->reply, reply != NULL ? reply : "", n);
  frame->reply_len = (uint32_t)n;
  return verdict;
}

/* Skips `length` bytes of which only `len` have come: the rest are thrown away as they come. */
static int reject_swallowing(quanta_frame* frame, uint64_t length, uint32_t len, const char* reply) {
  if (length <= len) return answer(frame, QUANTA_FRAME_REJECT, length, reply);
  frame->discard = (uint32_t)(length - len);
  return answer(frame, QUANTA_FRAME_REJECT, len, reply);
}

static uint64_t note_of(const char* request, const mc_command* cmd);

static int starts_with_get(const char* p, uint32_t len) {
  return (len >= 4 && memcmp(p, "get ", 4) == 0) || (len >= 5 && memcmp(p, "gets ", 5) == 0);
}

int mc_frame_request(const void* bytes, uint32_t len, quanta_frame* frame, mc_verb* verb) {
  const char* p = (const char*)bytes;
  const uint32_t limit = frame->max_request_bytes;
  frame->length = frame->class_index = frame->reply_len = frame->discard = 0;
  frame->note = 0;
  if (len == 0) return QUANTA_FRAME_NEED_MORE;
  /* A get line may be as long as a request; any other line as long as memcached allows. */
  const uint32_t line_limit = starts_with_get(p, len) ? limit : (limit < MC_MAX_LINE_BYTES ? limit : MC_MAX_LINE_BYTES);
  const uint32_t search = len < line_limit ? len : line_limit;
  const char* nl = memchr(p, '\n', search);
  if (nl == NULL) {
    if (len >= line_limit) return answer(frame, QUANTA_FRAME_CLOSE, 0, kLineTooLong);
    return QUANTA_FRAME_NEED_MORE;
  }
  const uint32_t line_end = (uint32_t)(nl - p) + 1;
  uint32_t line_len = line_end - 1;
  if (line_len > 0 && p[line_len - 1] == '\r') --line_len;
  mc_command cmd;
  const line_verdict v = parse_line(p, line_len, &cmd);
  if (v.error != NULL) {
    /* Only the line goes: memcached reads what follows a bad line as commands. */
    return answer(frame, QUANTA_FRAME_REJECT, line_end, v.error);
  }
  if (cmd.verb == MC_QUIT) return answer(frame, QUANTA_FRAME_CLOSE, line_end, NULL);
  uint64_t total = line_end;
  if (is_storage(cmd.verb)) {
    total += v.value_bytes + 2;
    /* A value too large to hold is read and thrown away (memcached swallows it), so that
     * its bytes are not read as commands. */
    if (total > limit) return reject_swallowing(frame, total, len, kTooLarge);
    if (len < total) return QUANTA_FRAME_NEED_MORE;
    if (p[total - 2] != '\r' || p[total - 1] != '\n') return answer(frame, QUANTA_FRAME_REJECT, total, kBadChunk);
  }
  *verb = cmd.verb;
  frame->length = (uint32_t)total;
  frame->note = note_of(p, &cmd);
  return QUANTA_FRAME_REQUEST;
}

/* ---- the framer's note ---- */

/* A get or gets of one key, the command a cache serves most, is noted for its handler:
 * the verb and where the key is, so that the handler runs it without parsing the line a
 * second time (quanta_frame.note). Other commands carry no note: their handler parses.
 *   bits 0-7    1 + the verb (MC_GET or MC_GETS)
 *   bits 8-31   the key's length (1..MC_MAX_KEY_BYTES)
 *   bits 32-63  the key's offset from the request's first byte */
enum { NOTE_TAG_BITS = 8, NOTE_LEN_SHIFT = 8, NOTE_OFFSET_SHIFT = 32 };

static uint64_t note_of(const char* request, const mc_command* cmd) {
  if ((cmd->verb != MC_GET && cmd->verb != MC_GETS) || cmd->key_count != 1) return 0;
  const uint64_t offset = (uint64_t)(cmd->keys[0].bytes - request);
  return offset << NOTE_OFFSET_SHIFT | (uint64_t)cmd->keys[0].len << NOTE_LEN_SHIFT | (uint64_t)(1 + cmd->verb);
}

int mc_command_from_note(const void* bytes, uint32_t len, uint64_t note, mc_command* out) {
  const uint64_t tag = note & ((1u << NOTE_TAG_BITS) - 1);
  const uint64_t key_len = (note >> NOTE_LEN_SHIFT) & 0xffffffu;
  const uint64_t offset = note >> NOTE_OFFSET_SHIFT;
  if (tag != 1 + (uint64_t)MC_GET && tag != 1 + (uint64_t)MC_GETS) return -1;
  /* The note comes from the framer that framed these very bytes; the bounds are checked
   * all the same, so that a wrong note can only make a wrong answer, never a wild read. */
  if (key_len == 0 || key_len > MC_MAX_KEY_BYTES || offset + key_len > len) return -1;
  memset(out, 0, offsetof(mc_command, keys));
  out->verb = (mc_verb)(tag - 1);
  out->key_count = 1;
  out->keys[0].bytes = (const char*)bytes + offset;
  out->keys[0].len = (uint32_t)key_len;
  return 0;
}

int mc_parse_command(const void* bytes, uint32_t len, mc_command* out) {
  const char* p = (const char*)bytes;
  if (len == 0) return -1;
  const char* nl = memchr(p, '\n', len);
  if (nl == NULL) return -1;
  const uint32_t line_end = (uint32_t)(nl - p) + 1;
  uint32_t line_len = line_end - 1;
  if (line_len > 0 && p[line_len - 1] == '\r') --line_len;
  const line_verdict v = parse_line(p, line_len, out);
  if (v.error != NULL) return -1;
  if (is_storage(out->verb)) {
    if ((uint64_t)line_end + v.value_bytes + 2 != len) return -1;
    out->data = p + line_end;
    out->data_len = (uint32_t)v.value_bytes;
  } else if (line_end != len) {
    return -1;
  }
  return 0;
}

/* ---- the client's framer ---- */

/* The line at `at`: its end (after \n) and its length without \r\n; 0 if not all here. */
static uint32_t line_at(const char* p, uint32_t len, uint32_t at, uint32_t* content) {
  if (at >= len) return 0; /* nothing here (and no pointer arithmetic on an empty buffer) */
  const char* nl = memchr(p + at, '\n', len - at);
  if (nl == NULL) return 0;
  const uint32_t end = (uint32_t)(nl - p) + 1;
  uint32_t n = end - 1 - at;
  if (n > 0 && p[at + n - 1] == '\r') --n;
  *content = n;
  return end;
}

static int line_is(const char* p, uint32_t n, const char* word) {
  const size_t w = strlen(word);
  return n >= w && memcmp(p, word, w) == 0 && (n == w || p[w] == ' ');
}

/* No reply line is longer than this; a stream without a line end this long is not replies. */
enum { MAX_REPLY_LINE = 4096 };

int mc_frame_reply(const void* bytes, uint32_t len, uint32_t* length, int* kind) {
  const char* p = (const char*)bytes;
  uint32_t at = 0;
  int multi = 0; /* inside VALUE/STAT blocks: the reply ends at END */
  for (;;) {
    uint32_t n = 0;
    const uint32_t end = line_at(p, len, at, &n);
    if (end == 0) return len - at > MAX_REPLY_LINE ? -1 : 0;
    const char* line = p + at;
    if (line_is(line, n, "VALUE")) {
      token tokens[6];
      const uint32_t count = split(line, n, tokens, sizeof tokens / sizeof tokens[0]);
      uint64_t value_bytes = 0;
      if (count < 4 || count > 5 || parse_u64(&tokens[3], UINT32_MAX, &value_bytes) != 0) return -1;
      const uint64_t next = end + value_bytes + 2;
      if (next > len) return 0;
      at = (uint32_t)next;
      multi = 1;
      continue;
    }
    if (line_is(line, n, "STAT")) {
      at = end;
      multi = 1;
      continue;
    }
    if (line_is(line, n, "END")) {
      *length = end;
      *kind = QUANTA_REPLY_OK;
      return 1;
    }
    if (multi) return -1; /* a VALUE or STAT block must end with END */
    *length = end;
    if (n == sizeof kBusy - 3 && memcmp(line, kBusy, n) == 0) {
      *kind = QUANTA_REPLY_OVERLOADED;
    } else if (line_is(line, n, "ERROR") || line_is(line, n, "CLIENT_ERROR") || line_is(line, n, "SERVER_ERROR")) {
      *kind = QUANTA_REPLY_ERROR;
    } else {
      *kind = QUANTA_REPLY_OK;
    }
    return 1;
  }
}

uint32_t mc_overloaded_reply(void* out, uint32_t capacity) {
  const uint32_t n = sizeof kBusy - 1;
  if (capacity < n) return 0;
  memcpy(out, kBusy, n);
  return n;
}

/* ---- replies ---- */

int mc_reply_line(quanta_response* response, const char* line) {
  const uint32_t before = response->len;
  if (quanta_response_append(response, line, strlen(line)) != 0 || quanta_response_append(response, "\r\n", 2) != 0) {
    response->len = before;
    return -1;
  }
  return 0;
}

/* Writes `v` in decimal at `out` (20 bytes at most) and returns how many bytes. Replies
 * are formatted on every GET: a loop of divisions by 10 costs far less than snprintf's
 * format parsing and locale-aware machinery. */
static uint32_t put_decimal(char* out, uint64_t v) {
  if (v < 10) {  /* flags are 0 in most stores: one digit, no loop */
    out[0] = (char)('0' + v);
    return 1;
  }
  char digits[20];
  uint32_t at = sizeof digits;
  do {
    digits[--at] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  const uint32_t n = (uint32_t)sizeof digits - at;
  memcpy(out, digits + at, n);
  return n;
}

int mc_reply_value(quanta_response* response, const mc_key* key, uint32_t flags, const void* data, uint32_t len,
                   const uint64_t* cas_unique) {
  const uint32_t before = response->len;
  /* " <flags> <bytes> [<cas>]\r\n": at most 1 + 10 + 1 + 10 + 1 + 20 + 2 bytes. */
  char tail[64];
  uint32_t n = 0;
  tail[n++] = ' ';
  n += put_decimal(tail + n, flags);
  tail[n++] = ' ';
  n += put_decimal(tail + n, len);
  if (cas_unique != NULL) {
    tail[n++] = ' ';
    n += put_decimal(tail + n, *cas_unique);
  }
  tail[n++] = '\r';
  tail[n++] = '\n';
  if (quanta_response_append(response, "VALUE ", 6) != 0 || quanta_response_append(response, key->bytes, key->len) != 0 ||
      quanta_response_append(response, tail, n) != 0 || quanta_response_append(response, data, len) != 0 ||
      quanta_response_append(response, "\r\n", 2) != 0) {
    response->len = before;
    return -1;
  }
  return 0;
}

int mc_reply_number(quanta_response* response, uint64_t value) {
  char line[24];
  const uint32_t n = put_decimal(line, value);
  line[n] = '\0';
  return mc_reply_line(response, line);
}

/* ---- requests ---- */

static uint32_t build(char* out, uint32_t capacity, int n) {
  return n > 0 && (uint32_t)n < capacity ? (uint32_t)n : 0;
}

uint32_t mc_build_get(char* out, uint32_t capacity, const char* key, uint32_t key_len) {
  return build(out, capacity, snprintf(out, capacity, "get %.*s\r\n", (int)key_len, key));
}

uint32_t mc_build_delete(char* out, uint32_t capacity, const char* key, uint32_t key_len) {
  return build(out, capacity, snprintf(out, capacity, "delete %.*s\r\n", (int)key_len, key));
}

uint32_t mc_build_set(char* out, uint32_t capacity, const char* key, uint32_t key_len, const void* value,
                      uint32_t value_len) {
  const int head = snprintf(out, capacity, "set %.*s 0 0 %u\r\n", (int)key_len, key, value_len);
  if (head <= 0 || (uint64_t)head + value_len + 2 > capacity) return 0;
  memcpy(out + head, value, value_len);
  memcpy(out + head + value_len, "\r\n", 2);
  return (uint32_t)head + value_len + 2;
}

uint32_t mc_build_scan(char* out, uint32_t capacity, const char* key, uint32_t key_len, uint32_t count) {
  return build(out, capacity, snprintf(out, capacity, "scan %.*s %u\r\n", (int)key_len, key, count));
}

uint32_t mc_class_of(mc_verb verb) {
  switch (verb) {
    case MC_GET:
    case MC_GETS: return MC_CLASS_GET;
    case MC_SET:
    case MC_ADD:
    case MC_REPLACE:
    case MC_APPEND:
    case MC_PREPEND:
    case MC_CAS: return MC_CLASS_SET;
    case MC_SCAN: return MC_CLASS_SCAN;
    case MC_DELETE: return MC_CLASS_DELETE;
    default: return MC_CLASS_OTHER;
  }
}

int mc_frame_classified(const void* bytes, uint32_t len, quanta_frame* frame) {
  mc_verb verb = MC_VERB_COUNT;
  const int verdict = mc_frame_request(bytes, len, frame, &verb);
  if (verdict == QUANTA_FRAME_REQUEST) frame->class_index = mc_class_of(verb);
  return verdict;
}

uint32_t mc_build_for_class(uint32_t class_index, char* out, uint32_t capacity, const char* key, uint32_t key_len,
                            const void* value, uint32_t value_len, uint32_t scan_count) {
  switch (class_index) {
    case MC_CLASS_GET: return mc_build_get(out, capacity, key, key_len);
    case MC_CLASS_SET: return mc_build_set(out, capacity, key, key_len, value, value_len);
    case MC_CLASS_SCAN: return mc_build_scan(out, capacity, key, key_len, scan_count);
    case MC_CLASS_DELETE: return mc_build_delete(out, capacity, key, key_len);
    default: return build(out, capacity, snprintf(out, capacity, "version\r\n"));
  }
}

int mc_stats_arg_is(const mc_command* c, const char* word) {
  return c->stats_arg != NULL && c->stats_arg_len == strlen(word) && memcmp(c->stats_arg, word, c->stats_arg_len) == 0;
}

int mc_stats_section_without_contents(const mc_command* c) {
  return mc_stats_arg_is(c, "settings") || mc_stats_arg_is(c, "items") || mc_stats_arg_is(c, "slabs") ||
         mc_stats_arg_is(c, "sizes") || mc_stats_arg_is(c, "conns");
}
