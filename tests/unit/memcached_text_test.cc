// The memcached text protocol (apps/memcached_text): the server's framer on every command,
// whole and in pieces, and on each kind of bad input; the parser's fields; the load
// client's reply framer. What real memcached answers is checked end to end by
// tests/python/test_kvcache.py; here each rule is pinned down on its own.
#include "memcached_text.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>

namespace {

constexpr uint32_t kLimit = 4096;

struct Framed {
  int verdict;
  uint32_t length;
  uint32_t discard;
  std::string reply;
  mc_verb verb;
};

Framed frame(const std::string& bytes, uint32_t limit = kLimit) {
  quanta_frame f{};
  f.max_request_bytes = limit;
  mc_verb verb = MC_VERB_COUNT;
  const int verdict = mc_frame_request(bytes.data(), static_cast<uint32_t>(bytes.size()), &f, &verb);
  return {verdict, f.length, f.discard, std::string(reinterpret_cast<const char*>(f.reply), f.reply_len), verb};
}

// A whole command is framed as exactly itself (with a next command after it) and every
// shorter prefix needs more.
void expect_request(const std::string& command, mc_verb verb) {
  SCOPED_TRACE(command);
  const Framed whole = frame(command + "version\r\n");
  EXPECT_EQ(whole.verdict, QUANTA_FRAME_REQUEST);
  EXPECT_EQ(whole.length, command.size());
  EXPECT_EQ(whole.verb, verb);
  for (size_t n = 1; n < command.size(); ++n) {
    EXPECT_EQ(frame(command.substr(0, n)).verdict, QUANTA_FRAME_NEED_MORE) << n;
  }
}

void expect_reject(const std::string& bytes, uint32_t length, const std::string& reply) {
  SCOPED_TRACE(bytes);
  const Framed f = frame(bytes);
  EXPECT_EQ(f.verdict, QUANTA_FRAME_REJECT);
  EXPECT_EQ(f.length, length);
  EXPECT_EQ(f.discard, 0u);
  EXPECT_EQ(f.reply, reply);
}

TEST(MemcachedFraming, EveryCommandIsFramedWholeAndNeedsMoreWhenCut) {
  expect_request("get k\r\n", MC_GET);
  expect_request("get a b c\r\n", MC_GET);
  expect_request("gets k\r\n", MC_GETS);
  expect_request("set k 1 0 5\r\nhello\r\n", MC_SET);
  expect_request("add k 0 0 0\r\n\r\n", MC_ADD);
  expect_request("replace k 0 0 2 noreply\r\nab\r\n", MC_REPLACE);
  expect_request("append k 0 0 3\r\nabc\r\n", MC_APPEND);
  expect_request("prepend k 0 0 3\r\nabc\r\n", MC_PREPEND);
  expect_request("cas k 0 0 3 99\r\nabc\r\n", MC_CAS);
  expect_request("delete k\r\n", MC_DELETE);
  expect_request("incr k 5\r\n", MC_INCR);
  expect_request("decr k 5\r\n", MC_DECR);
  expect_request("touch k 10\r\n", MC_TOUCH);
  expect_request("flush_all\r\n", MC_FLUSH_ALL);
  expect_request("version\r\n", MC_VERSION);
  expect_request("stats\r\n", MC_STATS);
  expect_request("stats items\r\n", MC_STATS);
  expect_request("verbosity 1\r\n", MC_VERBOSITY);
  expect_request("scan key:0000000001 10\r\n", MC_SCAN);
  // A bare \n ends a line too, as in memcached.
  expect_request("get k\n", MC_GET);
}

TEST(MemcachedFraming, AValueMayContainLineEndsAndCommandWords) {
  // The data block is counted, never searched.
  const std::string command = "set k 0 0 13\r\nget x\r\nquit\r\n\r\n";
  const Framed f = frame(command);
  EXPECT_EQ(f.verdict, QUANTA_FRAME_REQUEST);
  EXPECT_EQ(f.length, command.size());
}

TEST(MemcachedFraming, AValueWithoutItsLineEndIsABadDataChunk) {
  // The whole block is skipped: what follows it is read as commands.
  expect_reject("set k 0 0 3\r\nabcXYget k\r\n", 18, "CLIENT_ERROR bad data chunk\r\n");
  expect_reject("set k 0 0 3\r\nabc\n\n", 18, "CLIENT_ERROR bad data chunk\r\n");
}

TEST(MemcachedFraming, AValueTooLargeIsRefusedAndSwallowedAsItComes) {
  // Line (24 bytes) + 5000 + 2 is over the limit: answered at once, the rest discarded.
  const std::string line = "set k 0 0 5000 noreply\r\n";
  Framed f = frame(line + "abc");
  EXPECT_EQ(f.verdict, QUANTA_FRAME_REJECT);
  EXPECT_EQ(f.reply, "SERVER_ERROR object too large for cache\r\n");
  EXPECT_EQ(f.length, line.size() + 3);
  EXPECT_EQ(f.discard, 5002u - 3u);
  // All of it here: skipped without discarding later bytes.
  const std::string all = line + std::string(5000, 'v') + "\r\n";
  f = frame(all + "get k\r\n", 8192 - 1);
  EXPECT_EQ(f.verdict, QUANTA_FRAME_REQUEST);  // within a bigger limit it is a request
  f = frame(all + "get k\r\n", 5000);
  EXPECT_EQ(f.verdict, QUANTA_FRAME_REJECT);
  EXPECT_EQ(f.length, all.size());
  EXPECT_EQ(f.discard, 0u);
}

TEST(MemcachedFraming, ALineTooLongClosesTheConnection) {
  Framed f = frame(std::string(MC_MAX_LINE_BYTES, 'x'));
  EXPECT_EQ(f.verdict, QUANTA_FRAME_CLOSE);
  EXPECT_EQ(f.reply, "CLIENT_ERROR line too long\r\n");
  EXPECT_EQ(frame(std::string(MC_MAX_LINE_BYTES - 1, 'x')).verdict, QUANTA_FRAME_NEED_MORE);
  // A get line may be as long as a request (many keys), not longer.
  EXPECT_EQ(frame("get " + std::string(3000, 'k')).verdict, QUANTA_FRAME_NEED_MORE);
  EXPECT_EQ(frame("get " + std::string(kLimit, 'k')).verdict, QUANTA_FRAME_CLOSE);
  // A limit under memcached's line limit is the line limit.
  EXPECT_EQ(frame("set k 0 0 1", 8).verdict, QUANTA_FRAME_CLOSE);
}

TEST(MemcachedFraming, QuitClosesWithoutAnswer) {
  const Framed f = frame("quit\r\nget k\r\n");
  EXPECT_EQ(f.verdict, QUANTA_FRAME_CLOSE);
  EXPECT_EQ(f.length, 6u);
  EXPECT_EQ(f.reply, "");
  EXPECT_EQ(frame("quit now please\r\n").verdict, QUANTA_FRAME_CLOSE);  // extra tokens are ignored
}

TEST(MemcachedFraming, WrongTokenCountsAndUnknownCommandsAreError) {
  for (const std::string line : {"bogus", "", "get", "set k 0 0", "set k 0 0 1 noreply extra", "cas k 0 0 1",
                                 "incr k", "incr k 1 noreply extra", "touch k", "delete", "delete k 0 noreply x",
                                 "flush_all 1 noreply x", "stats a b", "verbosity", "verbosity 1 noreply x",
                                 "scan k", "GET k"}) {
    expect_reject(line + "\r\nget k\r\n", static_cast<uint32_t>(line.size() + 2), "ERROR\r\n");
  }
}

TEST(MemcachedFraming, TokensThatDoNotParseAreClientErrors) {
  const std::string bad = "CLIENT_ERROR bad command line format\r\n";
  const std::string long_key(MC_MAX_KEY_BYTES + 1, 'k');
  expect_reject("get " + long_key + "\r\n", static_cast<uint32_t>(long_key.size() + 6), bad);
  expect_reject("set k x 0 1\r\n", 13, bad);             // flags
  expect_reject("set k 4294967296 0 1\r\n", 22, bad);    // flags past a u32 (memcached would cut it)
  expect_reject("set k 0 x 1\r\n", 13, bad);             // exptime
  expect_reject("set k 0 0 -1\r\n", 14, bad);            // negative length
  expect_reject("cas k 0 0 1 x\r\n", 15, bad);           // cas unique
  expect_reject("incr k x\r\n", 10, "CLIENT_ERROR invalid numeric delta argument\r\n");
  expect_reject("incr k -1\r\n", 11, "CLIENT_ERROR invalid numeric delta argument\r\n");
  expect_reject("touch k x\r\n", 11, "CLIENT_ERROR invalid exptime argument\r\n");
  expect_reject("flush_all x\r\n", 13, "CLIENT_ERROR invalid exptime argument\r\n");
  expect_reject("delete k 1\r\n", 12, "CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]\r\n");
  expect_reject("scan k 0\r\n", 10, bad);
  expect_reject("scan k 1000001\r\n", 16, bad);
  // A bad storage line does not swallow the value: it is read as a command of its own.
  expect_reject("set k x 0 5\r\nhello\r\n", 13, bad);
}

TEST(MemcachedFraming, AGetOfTooManyKeysIsABadLine) {
  std::string line = "get";
  for (int i = 0; i < MC_MAX_KEYS; ++i) line += " k";
  EXPECT_EQ(frame(line + "\r\n").verdict, QUANTA_FRAME_REQUEST);
  line += " k";
  expect_reject(line + "\r\n", static_cast<uint32_t>(line.size() + 2), "CLIENT_ERROR bad command line format\r\n");
}

// ---- the parser ----

// The command points into its bytes: they are kept for the rest of the test program.
mc_command parse(const std::string& bytes) {
  static std::deque<std::string> kept;
  const std::string& held = kept.emplace_back(bytes);
  mc_command c{};
  EXPECT_EQ(mc_parse_command(held.data(), static_cast<uint32_t>(held.size()), &c), 0) << bytes;
  return c;
}

std::string key(const mc_command& c, uint32_t i) { return std::string(c.keys[i].bytes, c.keys[i].len); }

TEST(MemcachedParse, GetTakesEveryKey) {
  const mc_command c = parse("gets  a  bb ccc\r\n");
  EXPECT_EQ(c.verb, MC_GETS);
  ASSERT_EQ(c.key_count, 3u);
  EXPECT_EQ(key(c, 0), "a");
  EXPECT_EQ(key(c, 1), "bb");
  EXPECT_EQ(key(c, 2), "ccc");
}

TEST(MemcachedParse, StorageFields) {
  mc_command c = parse("set k 4294967295 -1 5 noreply\r\nhe\r\no\r\n");
  EXPECT_EQ(c.verb, MC_SET);
  EXPECT_EQ(key(c, 0), "k");
  EXPECT_EQ(c.flags, 4294967295u);
  EXPECT_EQ(c.exptime, -1);
  EXPECT_EQ(c.data_len, 5u);
  EXPECT_EQ(std::string(c.data, c.data_len), "he\r\no");
  EXPECT_EQ(c.noreply, 1);
  c = parse("cas key 7 100 1 18446744073709551615\r\nx\r\n");
  EXPECT_EQ(c.verb, MC_CAS);
  EXPECT_EQ(c.cas_unique, UINT64_MAX);
  EXPECT_EQ(c.exptime, 100);
  EXPECT_EQ(c.noreply, 0);
  // Any other token where noreply goes is ignored, as memcached does.
  EXPECT_EQ(parse("set k 0 0 1 whatever\r\nx\r\n").noreply, 0);
}

TEST(MemcachedParse, OtherCommandsFields) {
  mc_command c = parse("incr n 18446744073709551615 noreply\r\n");
  EXPECT_EQ(c.verb, MC_INCR);
  EXPECT_EQ(c.number, UINT64_MAX);
  EXPECT_EQ(c.noreply, 1);
  c = parse("decr n 3\r\n");
  EXPECT_EQ(c.verb, MC_DECR);
  EXPECT_EQ(c.number, 3u);
  c = parse("touch k 60 noreply\r\n");
  EXPECT_EQ(c.exptime, 60);
  EXPECT_EQ(c.noreply, 1);
  c = parse("delete k noreply\r\n");
  EXPECT_EQ(c.verb, MC_DELETE);
  EXPECT_EQ(c.noreply, 1);
  c = parse("delete k 0 noreply\r\n");
  EXPECT_EQ(c.noreply, 1);
  c = parse("delete k 0\r\n");
  EXPECT_EQ(c.noreply, 0);
  c = parse("flush_all 30 noreply\r\n");
  EXPECT_EQ(c.exptime, 30);
  EXPECT_EQ(c.noreply, 1);
  c = parse("flush_all noreply\r\n");
  EXPECT_EQ(c.exptime, 0);
  EXPECT_EQ(c.noreply, 1);
  c = parse("stats slabs\r\n");
  EXPECT_EQ(std::string(c.stats_arg, c.stats_arg_len), "slabs");
  EXPECT_EQ(parse("stats\r\n").stats_arg, nullptr);
  EXPECT_EQ(parse("verbosity 1 noreply\r\n").noreply, 1);
  c = parse("scan key:1 1000000\r\n");
  EXPECT_EQ(c.verb, MC_SCAN);
  EXPECT_EQ(key(c, 0), "key:1");
  EXPECT_EQ(c.number, 1000000u);
}

TEST(MemcachedParse, RefusesWhatTheFramerWouldNot) {
  mc_command c;
  for (const std::string bytes : {"get k", "get k\r\nextra", "bogus\r\n", "set k 0 0 3\r\nab\r\n",
                                  "set k 0 0 3\r\nabcd\r\n", "incr k x\r\n"}) {
    EXPECT_EQ(mc_parse_command(bytes.data(), static_cast<uint32_t>(bytes.size()), &c), -1) << bytes;
  }
}

// Every verb is found by its own name, whatever its length (the lookup compares bytes only
// where the length and the first byte agree), and a token that only starts like one is not.
TEST(MemcachedParse, EveryVerbIsFoundByItsNameAndNoOther) {
  for (int v = 0; v < MC_VERB_COUNT; ++v) {
    const std::string name = mc_verb_name(static_cast<mc_verb>(v));
    SCOPED_TRACE(name);
    // Some verbs need more tokens: those answer ERROR, as an unknown verb does, so tell them
    // apart by the verb the framer names when the line is whole.
    const Framed full = frame(name + (v == MC_GET || v == MC_GETS || v == MC_DELETE ? " k\r\n"
                                      : v == MC_INCR || v == MC_DECR ? " k 1\r\n"
                                      : v == MC_TOUCH ? " k 0\r\n"
                                      : v == MC_SCAN ? " k 1\r\n"
                                      : v == MC_VERBOSITY ? " 1\r\n"
                                      : v >= MC_SET && v <= MC_PREPEND ? " k 0 0 1\r\nx\r\n"
                                      : v == MC_CAS ? " k 0 0 1 1\r\nx\r\n"
                                      : "\r\n"));
    if (v == MC_QUIT) {
      EXPECT_EQ(full.verdict, QUANTA_FRAME_CLOSE);
    } else {
      EXPECT_EQ(full.verdict, QUANTA_FRAME_REQUEST);
      EXPECT_EQ(full.verb, v);
    }
    // One byte more or less ("gets" less one is "get", a verb of its own), or another first
    // byte, is no verb.
    EXPECT_EQ(frame(name + "x k 1\r\n").reply, "ERROR\r\n");
    if (v != MC_GETS) EXPECT_EQ(frame(name.substr(0, name.size() - 1) + " k 1\r\n").reply, "ERROR\r\n");
    EXPECT_EQ(frame("x" + name.substr(1) + " k 1\r\n").reply, "ERROR\r\n");
  }
}

// Tokens are split at runs of spaces wherever they fall, the key after the last space
// running to the line's end.
TEST(MemcachedParse, TokensSplitAtRunsOfSpaces) {
  mc_command c = parse("get   a    bb\r\n");
  ASSERT_EQ(c.key_count, 2u);
  EXPECT_EQ(key(c, 0), "a");
  EXPECT_EQ(key(c, 1), "bb");
  c = parse("get " + std::string(250, 'k') + "   \r\n");
  ASSERT_EQ(c.key_count, 1u);
  EXPECT_EQ(c.keys[0].len, 250u);
  EXPECT_EQ(frame("get " + std::string(251, 'k') + "\r\n").reply, "CLIENT_ERROR bad command line format\r\n");
}

// ---- the framer's note for the handler ----

uint64_t note_of(const std::string& bytes) {
  quanta_frame f{};
  f.max_request_bytes = kLimit;
  EXPECT_EQ(mc_frame_classified(bytes.data(), static_cast<uint32_t>(bytes.size()), &f), QUANTA_FRAME_REQUEST);
  EXPECT_EQ(f.length, bytes.size());
  return f.note;
}

// A get or gets of one key is noted, and the note gives the handler the very command a
// second parse would: the same verb, the same key at the same place in the bytes.
TEST(MemcachedNote, AOneKeyGetIsNotedAsTheParserWouldReadIt) {
  for (const std::string bytes : {std::string("get k\r\n"), std::string("gets key:0000001234\r\n"),
                                  std::string("get   spaced  \r\n"), std::string("get k\n"),
                                  "get " + std::string(250, 'z') + "\r\n"}) {
    SCOPED_TRACE(bytes);
    const uint64_t note = note_of(bytes);
    ASSERT_NE(note, 0u);
    mc_command noted, parsed;
    ASSERT_EQ(mc_command_from_note(bytes.data(), static_cast<uint32_t>(bytes.size()), note, &noted), 0);
    ASSERT_EQ(mc_parse_command(bytes.data(), static_cast<uint32_t>(bytes.size()), &parsed), 0);
    EXPECT_EQ(noted.verb, parsed.verb);
    EXPECT_EQ(noted.key_count, 1u);
    EXPECT_EQ(parsed.key_count, 1u);
    EXPECT_EQ(noted.keys[0].bytes, parsed.keys[0].bytes);
    EXPECT_EQ(noted.keys[0].len, parsed.keys[0].len);
    EXPECT_EQ(noted.noreply, 0);
    EXPECT_EQ(noted.data, nullptr);
  }
}

// Every other command carries no note (its handler parses), and so does anything that is
// not a request; a framer call that found no request leaves no note from an earlier one.
TEST(MemcachedNote, OtherCommandsAndNonRequestsCarryNone) {
  for (const std::string bytes : {"get a b\r\n", "set k 0 0 1\r\nx\r\n", "delete k\r\n", "version\r\n",
                                  "scan k 5\r\n", "incr k 1\r\n"}) {
    EXPECT_EQ(note_of(bytes), 0u) << bytes;
  }
  quanta_frame f{};
  f.max_request_bytes = kLimit;
  f.note = 12345;
  EXPECT_EQ(mc_frame_classified("get k", 5, &f), QUANTA_FRAME_NEED_MORE);
  EXPECT_EQ(f.note, 0u);
  f.note = 12345;
  EXPECT_EQ(mc_frame_classified("bogus\r\n", 7, &f), QUANTA_FRAME_REJECT);
  EXPECT_EQ(f.note, 0u);
}

// A note that describes nothing, or points outside the bytes it is given, is refused: the
// handler then parses, and never reads outside its payload.
TEST(MemcachedNote, ANoteOutsideItsBytesOrOfAnotherKindIsRefused) {
  const std::string bytes = "get k\r\n";
  const uint32_t len = static_cast<uint32_t>(bytes.size());
  mc_command c;
  const uint64_t good = note_of(bytes);
  ASSERT_EQ(mc_command_from_note(bytes.data(), len, good, &c), 0);
  EXPECT_EQ(key(c, 0), "k");
  EXPECT_EQ(mc_command_from_note(bytes.data(), len, 0, &c), -1);
  // The same note on bytes too short to hold its key.
  EXPECT_EQ(mc_command_from_note(bytes.data(), 4, good, &c), -1);
  // The key's offset or length moved past the end, a length of 0, another verb's tag.
  EXPECT_EQ(mc_command_from_note(bytes.data(), len, good + (uint64_t{len} << 32), &c), -1);
  EXPECT_EQ(mc_command_from_note(bytes.data(), len, (good & ~0xffffff00ull) | (uint64_t{len} << 8), &c), -1);
  EXPECT_EQ(mc_command_from_note(bytes.data(), len, good & ~0xffffff00ull, &c), -1);
  EXPECT_EQ(mc_command_from_note(bytes.data(), len, (good & ~0xffull) | (1 + MC_SET), &c), -1);
  EXPECT_EQ(mc_command_from_note(bytes.data(), len, (good & ~0xffull), &c), -1);
}

// ---- the client's reply framer ----

struct ReplyFrame {
  int result;
  uint32_t length;
  int kind;
};

ReplyFrame frame_reply(const std::string& bytes) {
  ReplyFrame r{0, 0, -1};
  r.result = mc_frame_reply(bytes.data(), static_cast<uint32_t>(bytes.size()), &r.length, &r.kind);
  return r;
}

void expect_reply(const std::string& reply, int kind) {
  SCOPED_TRACE(reply);
  const ReplyFrame r = frame_reply(reply + "STORED\r\n");
  EXPECT_EQ(r.result, 1);
  EXPECT_EQ(r.length, reply.size());
  EXPECT_EQ(r.kind, kind);
  for (size_t n = 0; n < reply.size(); ++n) EXPECT_EQ(frame_reply(reply.substr(0, n)).result, 0) << n;
}

TEST(MemcachedReplies, ValueBlocksEndAtEnd) {
  expect_reply("END\r\n", QUANTA_REPLY_OK);
  expect_reply("VALUE k 0 5\r\nhello\r\nEND\r\n", QUANTA_REPLY_OK);
  // A value holding what looks like an END line is counted past, not searched.
  expect_reply("VALUE a 1 5 17\r\nEND\r\n\r\nVALUE b 0 0\r\n\r\nEND\r\n", QUANTA_REPLY_OK);
}

TEST(MemcachedReplies, StatBlocksEndAtEnd) {
  expect_reply("STAT pid 1\r\nSTAT uptime 2\r\nEND\r\n", QUANTA_REPLY_OK);
}

TEST(MemcachedReplies, SingleLines) {
  for (const char* line : {"STORED\r\n", "NOT_STORED\r\n", "DELETED\r\n", "42\r\n", "OK\r\n", "VERSION 1.6.18\r\n",
                           "SCANNED 3 00000000000000ff\r\n"}) {
    expect_reply(line, QUANTA_REPLY_OK);
  }
  expect_reply("SERVER_ERROR busy\r\n", QUANTA_REPLY_OVERLOADED);
  for (const char* line : {"ERROR\r\n", "CLIENT_ERROR bad data chunk\r\n", "SERVER_ERROR object too large for cache\r\n",
                           "SERVER_ERROR busy now\r\n"}) {
    expect_reply(line, QUANTA_REPLY_ERROR);
  }
}

TEST(MemcachedReplies, GarbageIsNotAReply) {
  EXPECT_EQ(frame_reply("VALUE k 0 x\r\nhello\r\nEND\r\n").result, -1);  // no length
  EXPECT_EQ(frame_reply("VALUE k 0\r\n").result, -1);
  // More tokens than a VALUE line has: refused without writing past the parser's tokens.
  EXPECT_EQ(frame_reply("VALUE a b c d e f g h i j k l m n o p\r\n").result, -1);
  EXPECT_EQ(frame_reply("VALUE k 0 1\r\nx\r\nSTORED\r\n").result, -1);  // a block must end at END
  EXPECT_EQ(frame_reply("STAT a 1\r\nDELETED\r\n").result, -1);
  EXPECT_EQ(frame_reply(std::string(5000, 'x')).result, -1);              // no line end for too long
  EXPECT_EQ(frame_reply(std::string(100, 'x')).result, 0);
}

TEST(MemcachedReplies, OverloadedReplyIsWhatTheFramerCallsOverloaded) {
  char out[64];
  const uint32_t n = mc_overloaded_reply(out, sizeof out);
  EXPECT_EQ(std::string(out, n), "SERVER_ERROR busy\r\n");
  EXPECT_EQ(mc_overloaded_reply(out, n - 1), 0u);
}

// ---- writers and builders ----

TEST(MemcachedWriters, RepliesAppendOrLeaveTheResponseAsItWas) {
  char buffer[40];
  quanta_response r{0, 0, 0, buffer, sizeof buffer};
  const mc_key k{"key", 3};
  ASSERT_EQ(mc_reply_value(&r, &k, 5, "abc", 3, nullptr), 0);
  const uint64_t cas = 9;
  ASSERT_EQ(mc_reply_value(&r, &k, 0, "", 0, &cas), 0);
  EXPECT_EQ(std::string(buffer, r.len), "VALUE key 5 3\r\nabc\r\nVALUE key 0 0 9\r\n\r\n");
  const uint32_t before = r.len;
  EXPECT_EQ(mc_reply_value(&r, &k, 0, "too long to fit", 15, nullptr), -1);
  EXPECT_EQ(mc_reply_line(&r, "END END"), -1);
  EXPECT_EQ(r.len, before);
  r.len = 0;
  ASSERT_EQ(mc_reply_number(&r, UINT64_MAX), 0);
  EXPECT_EQ(std::string(buffer, r.len), "18446744073709551615\r\n");
}

// The value line's numbers are written without snprintf: the widest of each, and zero.
TEST(MemcachedWriters, ValueLineNumbersAtTheirLimits) {
  char buffer[128];
  quanta_response r{0, 0, 0, buffer, sizeof buffer};
  const mc_key k{"k", 1};
  const uint64_t cas = UINT64_MAX;
  ASSERT_EQ(mc_reply_value(&r, &k, UINT32_MAX, "v", 1, &cas), 0);
  EXPECT_EQ(std::string(buffer, r.len), "VALUE k 4294967295 1 18446744073709551615\r\nv\r\n");
  r.len = 0;
  const uint64_t zero = 0;
  ASSERT_EQ(mc_reply_value(&r, &k, 10, "0123456789", 10, &zero), 0);
  EXPECT_EQ(std::string(buffer, r.len), "VALUE k 10 10 0\r\n0123456789\r\n");
  r.len = 0;
  ASSERT_EQ(mc_reply_number(&r, 0), 0);
  ASSERT_EQ(mc_reply_number(&r, 1000), 0);
  EXPECT_EQ(std::string(buffer, r.len), "0\r\n1000\r\n");
}

TEST(MemcachedWriters, BuiltRequestsFrameAsThemselves) {
  char out[128];
  uint32_t n = mc_build_get(out, sizeof out, "key:1", 5);
  EXPECT_EQ(std::string(out, n), "get key:1\r\n");
  n = mc_build_set(out, sizeof out, "key:1", 5, "vv", 2);
  EXPECT_EQ(std::string(out, n), "set key:1 0 0 2\r\nvv\r\n");
  EXPECT_EQ(frame(std::string(out, n)).length, n);
  n = mc_build_scan(out, sizeof out, "key:1", 5, 7);
  EXPECT_EQ(std::string(out, n), "scan key:1 7\r\n");
  EXPECT_EQ(mc_build_get(out, 8, "key:1", 5), 0u);
  EXPECT_EQ(mc_build_set(out, 20, "key:1", 5, "vv", 2), 0u);
  EXPECT_STREQ(mc_verb_name(MC_FLUSH_ALL), "flush_all");
  EXPECT_STREQ(mc_verb_name(MC_VERB_COUNT), "?");
}

}  // namespace
