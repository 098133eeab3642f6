// libFuzzer target for the memcached text protocol (apps/memcached_text): arbitrary bytes
// as a TCP stream, framed the way the TCP front end frames a connection's read buffer
// (src/net/tcp_front_end.cc: framed input leaves the buffer, a reject's discard is thrown
// away as it arrives, a close ends the stream), once whole and once arriving in pieces
// whose sizes come from the input. Checks that how the stream was cut changes nothing,
// that no verdict claims bytes it was not given, that every request the framer accepts
// parses (and that the note it leaves for the handler says what the parse says), and that the reply framer stays within its input.
//
// CI runs it for a fixed number of inputs (ctest: fuzz.memcached_text). For longer:
//   build/bin/quanta-fuzz-memcached-text -max_total_time=600 corpus/
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "memcached_text.h"

namespace {

struct Outcome {
  int verdict;
  uint32_t length;
  uint32_t discard;
  uint32_t reply_len;
  unsigned char reply[QUANTA_FRAME_REPLY_CAPACITY];
  bool operator==(const Outcome& o) const {
    return verdict == o.verdict && length == o.length && discard == o.discard && reply_len == o.reply_len &&
           std::memcmp(reply, o.reply, reply_len) == 0;
  }
};

void check(bool ok) {
  if (!ok) std::abort();
}

// One framed input's outcome, less what depends on how much had arrived: a reject's
// `length` and `discard` together are what it skips, however they are split.
Outcome outcome_of(int verdict, const quanta_frame& f) {
  Outcome o{};
  o.verdict = verdict;
  o.length = f.length + (verdict == QUANTA_FRAME_REJECT ? f.discard : 0);
  o.reply_len = f.reply_len;
  std::memcpy(o.reply, f.reply, f.reply_len);
  return o;
}

// Frames `stream` arriving in pieces of the given sizes (cycled; empty: all at once) into a
// buffer of `limit` bytes; stops at the first close, or when the stream is used up.
std::vector<Outcome> frame_stream(const std::vector<unsigned char>& stream, const std::vector<uint32_t>& pieces,
                                  uint32_t limit) {
  std::vector<Outcome> outcomes;
  std::vector<unsigned char> buffer(limit);
  uint32_t held = 0;
  uint64_t to_discard = 0;
  std::size_t taken = 0;
  std::size_t piece = 0;
  for (;;) {
    if (held > 0 && to_discard == 0) {
      quanta_frame f{};
      f.max_request_bytes = limit;
      mc_verb verb = MC_VERB_COUNT;
      // A copy of exactly the held bytes: ASan sees a read past them.
      std::vector<unsigned char> exact(buffer.begin(), buffer.begin() + held);
      const int verdict = mc_frame_request(exact.data(), held, &f, &verb);
      check(f.reply_len <= QUANTA_FRAME_REPLY_CAPACITY);
      if (verdict != QUANTA_FRAME_NEED_MORE) {
        check(f.length <= held);
        outcomes.push_back(outcome_of(verdict, f));
        if (verdict == QUANTA_FRAME_CLOSE) return outcomes;
        check(f.length > 0);
        if (verdict == QUANTA_FRAME_REQUEST) {
          check(f.length <= limit && verb < MC_VERB_COUNT && verb != MC_QUIT);
          mc_command c;
          check(mc_parse_command(exact.data(), f.length, &c) == 0);
          check(c.verb == verb);
          check(c.key_count <= MC_MAX_KEYS);
          for (uint32_t k = 0; k < c.key_count; ++k) {
            check(c.keys[k].len > 0 && c.keys[k].len <= MC_MAX_KEY_BYTES);
            check(c.keys[k].bytes >= reinterpret_cast<const char*>(exact.data()) &&
                  c.keys[k].bytes + c.keys[k].len <= reinterpret_cast<const char*>(exact.data()) + f.length);
          }
          if (c.data != nullptr) {
            check(c.data + c.data_len + 2 == reinterpret_cast<const char*>(exact.data()) + f.length);
          }
          // The framer's note, where it gives one, is the command the parse read: the
          // handler may take it instead of parsing again.
          mc_command noted;
          if (mc_command_from_note(exact.data(), f.length, f.note, &noted) == 0) {
            check(f.note != 0 && (c.verb == MC_GET || c.verb == MC_GETS) && c.key_count == 1);
            check(noted.verb == c.verb && noted.key_count == 1 && noted.keys[0].bytes == c.keys[0].bytes &&
                  noted.keys[0].len == c.keys[0].len && noted.noreply == 0 && noted.data == nullptr);
          } else {
            check(f.note == 0);
          }
        } else {
          check(verdict == QUANTA_FRAME_REJECT && f.reply_len > 0);
          to_discard = f.discard;
          check(f.discard == 0 || f.length == held);  // only what is not here yet is discarded
        }
        std::memmove(buffer.data(), buffer.data() + f.length, held - f.length);
        held -= f.length;
        continue;
      }
      // Needing more must leave room to get it.
      check(held < limit);
    }
    if (taken == stream.size()) return outcomes;
    std::size_t n = pieces.empty() ? stream.size() - taken : pieces[piece++ % pieces.size()];
    if (n > stream.size() - taken) n = stream.size() - taken;
    if (to_discard > 0) {
      const std::size_t gone = n < to_discard ? n : static_cast<std::size_t>(to_discard);
      to_discard -= gone;
      taken += gone;
      continue;
    }
    if (n > limit - held) n = limit - held;
    std::memcpy(buffer.data() + held, stream.data() + taken, n);
    held += static_cast<uint32_t>(n);
    taken += n;
  }
}

// The reply framer on exactly `len` bytes (a copy, so that ASan sees a read past them).
void check_reply_framer(const unsigned char* data, std::size_t size) {
  const std::vector<unsigned char> exact(data, data + size);
  uint32_t length = 0;
  int kind = -1;
  const int r = mc_frame_reply(exact.data(), static_cast<uint32_t>(size), &length, &kind);
  check(r >= -1 && r <= 1);
  if (r == 1) {
    check(length > 0 && length <= size);
    check(kind == QUANTA_REPLY_OK || kind == QUANTA_REPLY_OVERLOADED || kind == QUANTA_REPLY_ERROR);
    // The reply alone is framed the same.
    uint32_t again = 0;
    int kind_again = -1;
    check(mc_frame_reply(exact.data(), length, &again, &kind_again) == 1 && again == length && kind_again == kind);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  // Limits from small to above memcached's line limit reach every verdict.
  const uint32_t limit = 16 + data[0] * 16u;
  std::vector<uint32_t> pieces;
  for (uint32_t i = 0; i < data[1] % 8; ++i) pieces.push_back(1 + (data[2] >> i) % 29);
  const std::vector<unsigned char> stream(data + 3, data + size);
  const std::vector<Outcome> whole = frame_stream(stream, {}, limit);
  if (!pieces.empty()) check(frame_stream(stream, pieces, limit) == whole);
  check_reply_framer(data + 3, size - 3);
  return 0;
}
