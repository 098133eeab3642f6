// The front ends' two wire formats: quanta's default protocol (each verdict of the header
// framer turned into what a front end does) and an app's own protocol (a toy line protocol
// written here), including framers that say impossible things, which must be refused
// rather than acted on.
#include "net/wire_format.h"
#include "runtime/request_run.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace quanta {
namespace {

// ---- the default protocol ----

std::vector<unsigned char> wire_request(uint16_t class_index, const std::string& payload, uint64_t id) {
  std::vector<unsigned char> out(QUANTA_WIRE_REQUEST_HEADER + payload.size());
  const quanta_wire_request r{class_index, static_cast<uint32_t>(payload.size()), id};
  quanta_wire_encode_request(out.data(), &r);
  std::memcpy(out.data() + QUANTA_WIRE_REQUEST_HEADER, payload.data(), payload.size());
  return out;
}

quanta_wire_reply decoded_answer(const FramedInput& in) {
  quanta_wire_reply reply{};
  EXPECT_EQ(in.answer_len, QUANTA_WIRE_REPLY_HEADER);
  EXPECT_EQ(quanta_wire_decode_reply(in.answer, in.answer_len, &reply), 1);
  return reply;
}

const DefaultWireFormat kDefault(100, 2);

TEST(DefaultWireFormat, ARequestIsFramedWithItsPayload) {
  const auto bytes = wire_request(1, "hello", 42);
  const FramedInput in = kDefault.frame(bytes.data(), static_cast<uint32_t>(bytes.size()));
  EXPECT_EQ(in.kind, InputKind::kRequest);
  EXPECT_EQ(in.reason, RefusalReason::kNone);
  EXPECT_EQ(in.length, bytes.size());
  EXPECT_EQ(in.class_index, 1u);
  EXPECT_EQ(in.request_id, 42u);
  EXPECT_EQ(in.payload_offset, QUANTA_WIRE_REQUEST_HEADER);
  EXPECT_EQ(in.payload_len, 5u);
  EXPECT_EQ(kDefault.max_frame_bytes(), QUANTA_WIRE_REQUEST_HEADER + 100);
  EXPECT_FALSE(kDefault.empty_response_is_silent());
}

TEST(DefaultWireFormat, APartialRequestNeedsMore) {
  const auto bytes = wire_request(0, "abc", 1);
  for (uint32_t len = 1; len < bytes.size(); ++len) EXPECT_EQ(kDefault.frame(bytes.data(), len).kind, InputKind::kNeedMore);
}

TEST(DefaultWireFormat, BadMagicClosesWithABadRequestReply) {
  auto bytes = wire_request(0, "abc", 9);
  bytes[0] ^= 0xff;
  const FramedInput in = kDefault.frame(bytes.data(), static_cast<uint32_t>(bytes.size()));
  EXPECT_EQ(in.kind, InputKind::kClose);
  EXPECT_EQ(in.reason, RefusalReason::kBadMagic);
  const quanta_wire_reply reply = decoded_answer(in);
  EXPECT_EQ(reply.kind, QUANTA_WIRE_BAD_REQUEST);
  EXPECT_EQ(reply.request_id, 0u);  // the header cannot be trusted for its id
}

TEST(DefaultWireFormat, TooLargeClosesWithTheRequestsId) {
  const auto bytes = wire_request(0, std::string(101, 'x'), 7);
  const FramedInput in = kDefault.frame(bytes.data(), QUANTA_WIRE_REQUEST_HEADER);
  EXPECT_EQ(in.kind, InputKind::kClose);
  EXPECT_EQ(in.reason, RefusalReason::kTooLarge);
  EXPECT_EQ(decoded_answer(in).request_id, 7u);
}

TEST(DefaultWireFormat, AnUnknownClassIsAnsweredAndSkipped) {
  const auto bytes = wire_request(2, "abc", 5);
  const FramedInput in = kDefault.frame(bytes.data(), static_cast<uint32_t>(bytes.size()));
  EXPECT_EQ(in.kind, InputKind::kAnswer);
  EXPECT_EQ(in.reason, RefusalReason::kBadClass);
  EXPECT_EQ(in.length, bytes.size());
  const quanta_wire_reply reply = decoded_answer(in);
  EXPECT_EQ(reply.kind, QUANTA_WIRE_BAD_REQUEST);
  EXPECT_EQ(reply.request_id, 5u);
}

TEST(DefaultWireFormat, DatagramsThatAreNotOneRequestAreAnswered) {
  const auto bytes = wire_request(0, "abcdef", 11);
  // Shorter than a header: its id is unknown.
  FramedInput in = kDefault.frame_datagram(bytes.data(), 10);
  EXPECT_EQ(in.kind, InputKind::kAnswer);
  EXPECT_EQ(in.reason, RefusalReason::kTruncated);
  EXPECT_EQ(decoded_answer(in).request_id, 0u);
  // A header saying more than the datagram carries.
  in = kDefault.frame_datagram(bytes.data(), static_cast<uint32_t>(bytes.size()) - 1);
  EXPECT_EQ(in.kind, InputKind::kAnswer);
  EXPECT_EQ(in.reason, RefusalReason::kLengthMismatch);
  EXPECT_EQ(decoded_answer(in).request_id, 11u);
  // More bytes than the header says.
  auto longer = bytes;
  longer.push_back('!');
  in = kDefault.frame_datagram(longer.data(), static_cast<uint32_t>(longer.size()));
  EXPECT_EQ(in.kind, InputKind::kAnswer);
  EXPECT_EQ(in.reason, RefusalReason::kLengthMismatch);
  EXPECT_EQ(decoded_answer(in).request_id, 11u);
  // Exactly one request.
  in = kDefault.frame_datagram(bytes.data(), static_cast<uint32_t>(bytes.size()));
  EXPECT_EQ(in.kind, InputKind::kRequest);
  EXPECT_EQ(in.length, bytes.size());
}

TEST(DefaultWireFormat, ADatagramWithBadMagicIsAnAnswerNotAClose) {
  auto bytes = wire_request(0, "abc", 3);
  bytes[1] ^= 0xff;
  const FramedInput in = kDefault.frame_datagram(bytes.data(), static_cast<uint32_t>(bytes.size()));
  EXPECT_EQ(in.kind, InputKind::kAnswer);
  EXPECT_EQ(in.reason, RefusalReason::kBadMagic);
  EXPECT_EQ(in.length, bytes.size());
}

TEST(TenantWireFormat, EveryRequestIsTheTenantsClassAndTheRestIsTheInnerFormats) {
  const TenantWireFormat tenant(kDefault, 1);
  const auto bytes = wire_request(0, "hello", 42);
  FramedInput in = tenant.frame(bytes.data(), static_cast<uint32_t>(bytes.size()));
  EXPECT_EQ(in.kind, InputKind::kRequest);
  EXPECT_EQ(in.class_index, 1u) << "class 0 in the header, the tenant's class on its socket";
  EXPECT_EQ(in.request_id, 42u);
  in = tenant.frame_datagram(bytes.data(), static_cast<uint32_t>(bytes.size()));
  EXPECT_EQ(in.class_index, 1u);
  // What the inner format refuses stays refused, for the inner format's reason.
  const auto unknown = wire_request(7, "x", 9);
  in = tenant.frame(unknown.data(), static_cast<uint32_t>(unknown.size()));
  EXPECT_EQ(in.kind, InputKind::kAnswer);
  EXPECT_EQ(in.reason, RefusalReason::kBadClass);
  in = tenant.frame_datagram(bytes.data(), 5);
  EXPECT_EQ(in.reason, RefusalReason::kTruncated);
  auto longer = bytes;
  longer.push_back(0);
  in = tenant.frame_datagram(longer.data(), static_cast<uint32_t>(longer.size()));
  EXPECT_EQ(in.reason, RefusalReason::kLengthMismatch);
  EXPECT_EQ(tenant.max_frame_bytes(), kDefault.max_frame_bytes());
}

TEST(DefaultWireFormat, ReplyPrefixAndOverloadedCarryTheId) {
  Request done;
  done.cookie = 77;
  done.response_len = 12;
  done.value = 5;
  done.status = -3;
  unsigned char out[WireFormat::kMaxPrefixBytes];
  ASSERT_EQ(kDefault.reply_prefix(done, out), QUANTA_WIRE_REPLY_HEADER);
  quanta_wire_reply reply{};
  ASSERT_EQ(quanta_wire_decode_reply(out, QUANTA_WIRE_REPLY_HEADER, &reply), 1);
  EXPECT_EQ(reply.kind, QUANTA_WIRE_OK);
  EXPECT_EQ(reply.request_id, 77u);
  EXPECT_EQ(reply.response_len, 12u);
  EXPECT_EQ(reply.value, 5u);
  EXPECT_EQ(reply.status, -3);
  unsigned char busy[QUANTA_FRAME_REPLY_CAPACITY];
  ASSERT_EQ(kDefault.overloaded(99, busy), QUANTA_WIRE_REPLY_HEADER);
  ASSERT_EQ(quanta_wire_decode_reply(busy, QUANTA_WIRE_REPLY_HEADER, &reply), 1);
  EXPECT_EQ(reply.kind, QUANTA_WIRE_OVERLOADED);
  EXPECT_EQ(reply.request_id, 99u);
}

// ---- an app's protocol: a toy line protocol ----
//
//   "run <class> <text>\n"  a request of that class (with a note for the handler: where
//                           <text> starts, and the line's length)
//   "bad ...\n"             answered "ERR\n", the line skipped
//   "blob <n>\n"            answered "TOO BIG\n"; the n bytes after the line are thrown away
//   "quit\n"                answered "BYE\n", then the connection closes
//   anything else           the connection closes without an answer
// A line with no end within the server's limit must not be waited for.

int set_reply(quanta_frame* f, const char* text) {
  f->reply_len = static_cast<uint32_t>(std::strlen(text));
  std::memcpy(f->reply, text, f->reply_len);
  return 0;
}

int toy_frame(const void* bytes, uint32_t len, quanta_frame* f) {
  const char* p = static_cast<const char*>(bytes);
  const void* nl = std::memchr(p, '\n', len);
  if (nl == nullptr) return len >= f->max_request_bytes ? QUANTA_FRAME_CLOSE : QUANTA_FRAME_NEED_MORE;
  const uint32_t line = static_cast<uint32_t>(static_cast<const char*>(nl) - p) + 1;
  const std::string text(p, line - 1);
  if (text.rfind("run ", 0) == 0 && text.size() >= 5) {
    f->length = line;
    f->class_index = static_cast<uint32_t>(text[4] - '0');
    // A note for the handler: where the text after the class starts, and the line's length.
    if (text.size() > 6) f->note = uint64_t{6} << 32 | line;
    return QUANTA_FRAME_REQUEST;
  }
  if (text.rfind("bad", 0) == 0) {
    f->length = line;
    set_reply(f, "ERR\n");
    return QUANTA_FRAME_REJECT;
  }
  if (text.rfind("blob ", 0) == 0) {
    const uint32_t n = static_cast<uint32_t>(std::stoul(text.substr(5)));
    set_reply(f, "TOO BIG\n");
    const uint32_t here = len - line < n ? len - line : n;
    f->length = line + here;
    f->discard = n - here;
    return QUANTA_FRAME_REJECT;
  }
  if (text == "quit") {
    f->length = line;
    set_reply(f, "BYE\n");
    return QUANTA_FRAME_CLOSE;
  }
  return QUANTA_FRAME_CLOSE;
}

uint32_t toy_busy(void* out, uint32_t capacity) {
  const char kBusy[] = "BUSY\n";
  if (capacity < sizeof kBusy - 1) return 0;
  std::memcpy(out, kBusy, sizeof kBusy - 1);
  return sizeof kBusy - 1;
}

const quanta_protocol kToy = {"toy", toy_frame, toy_busy, nullptr, QUANTA_DATAGRAM_PLAIN};
const AppWireFormat kApp(kToy, 64, 3);

FramedInput frame(const WireFormat& format, const std::string& bytes) {
  return format.frame(reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<uint32_t>(bytes.size()));
}

FramedInput frame_datagram(const WireFormat& format, const std::string& bytes) {
  return format.frame_datagram(reinterpret_cast<const unsigned char*>(bytes.data()),
                               static_cast<uint32_t>(bytes.size()));
}

std::string answer_of(const FramedInput& in) { return std::string(reinterpret_cast<const char*>(in.answer), in.answer_len); }

TEST(AppWireFormat, ARequestIsTheWholeFrameAsPayload) {
  const FramedInput in = frame(kApp, "run 2 hello\nrun 0 next\n");
  EXPECT_EQ(in.kind, InputKind::kRequest);
  EXPECT_EQ(in.length, 12u);
  EXPECT_EQ(in.class_index, 2u);
  EXPECT_EQ(in.payload_offset, 0u);
  EXPECT_EQ(in.payload_len, 12u);
  EXPECT_EQ(in.request_id, 0u);
  EXPECT_EQ(kApp.max_frame_bytes(), 64u);
  EXPECT_TRUE(kApp.empty_response_is_silent());
}

TEST(AppWireFormat, APartialLineNeedsMore) {
  EXPECT_EQ(frame(kApp, "run 1 hel").kind, InputKind::kNeedMore);
}

TEST(AppWireFormat, ARejectIsAnsweredWithTheFramersBytes) {
  const FramedInput in = frame(kApp, "bad command\nrun 0 x\n");
  EXPECT_EQ(in.kind, InputKind::kAnswer);
  EXPECT_EQ(in.reason, RefusalReason::kProtocolRefused);
  EXPECT_EQ(in.length, 12u);
  EXPECT_EQ(in.discard, 0u);
  EXPECT_EQ(answer_of(in), "ERR\n");
}

TEST(AppWireFormat, ARejectMayDiscardBytesStillToCome) {
  const FramedInput in = frame(kApp, "blob 100\nabc");
  EXPECT_EQ(in.kind, InputKind::kAnswer);
  EXPECT_EQ(in.length, 12u);
  EXPECT_EQ(in.discard, 97u);
  EXPECT_EQ(answer_of(in), "TOO BIG\n");
}

TEST(AppWireFormat, ACloseSendsItsAnswer) {
  FramedInput in = frame(kApp, "quit\nrun 0 x\n");
  EXPECT_EQ(in.kind, InputKind::kClose);
  EXPECT_EQ(in.reason, RefusalReason::kProtocolRefused);
  EXPECT_EQ(answer_of(in), "BYE\n");
  in = frame(kApp, "garbage\n");
  EXPECT_EQ(in.kind, InputKind::kClose);
  EXPECT_EQ(in.answer_len, 0u);
}

TEST(AppWireFormat, NeedMoreAtTheLimitClosesAsTooLarge) {
  // A framer that waits forever: the server cannot buffer past its limit.
  const quanta_protocol waits = {"waits", [](const void*, uint32_t, quanta_frame*) { return int{QUANTA_FRAME_NEED_MORE}; },
                                 nullptr, nullptr, QUANTA_DATAGRAM_PLAIN};
  const AppWireFormat format(waits, 64, 1);
  EXPECT_EQ(frame(format, std::string(63, 'x')).kind, InputKind::kNeedMore);
  const FramedInput in = frame(format, std::string(64, 'x'));
  EXPECT_EQ(in.kind, InputKind::kClose);
  EXPECT_EQ(in.reason, RefusalReason::kTooLarge);
  EXPECT_EQ(in.answer_len, 0u);
}

// A framer that answers whatever the test sets here.
int g_lie_verdict;
quanta_frame g_lie;

int lying_frame(const void*, uint32_t, quanta_frame* f) {
  const uint32_t limit = f->max_request_bytes;
  *f = g_lie;
  f->max_request_bytes = limit;
  return g_lie_verdict;
}

const quanta_protocol kLiar = {"liar", lying_frame, nullptr, nullptr, QUANTA_DATAGRAM_PLAIN};
const AppWireFormat kLying(kLiar, 64, 3);

FramedInput lie(int verdict, uint32_t length, uint32_t class_index, uint32_t reply_len = 0) {
  g_lie_verdict = verdict;
  g_lie = quanta_frame{};
  g_lie.length = length;
  g_lie.class_index = class_index;
  g_lie.reply_len = reply_len;
  std::memset(g_lie.reply, 'r', sizeof g_lie.reply);
  return frame(kLying, "0123456789");
}

TEST(AppWireFormat, AFramerThatLiesIsRefusedSafely) {
  // A request of no bytes would never move the stream on.
  FramedInput in = lie(QUANTA_FRAME_REQUEST, 0, 0);
  EXPECT_EQ(in.kind, InputKind::kClose);
  // A request longer than the bytes it was given.
  in = lie(QUANTA_FRAME_REQUEST, 11, 0);
  EXPECT_EQ(in.kind, InputKind::kClose);
  EXPECT_EQ(in.reason, RefusalReason::kTooLarge);
  // A class the app does not serve: answered (nothing to say) and skipped.
  in = lie(QUANTA_FRAME_REQUEST, 4, 3);
  EXPECT_EQ(in.kind, InputKind::kAnswer);
  EXPECT_EQ(in.reason, RefusalReason::kBadClass);
  EXPECT_EQ(in.length, 4u);
  EXPECT_EQ(in.answer_len, 0u);
  // A reject that skips nothing, or more than there is, closes instead.
  in = lie(QUANTA_FRAME_REJECT, 0, 0, 3);
  EXPECT_EQ(in.kind, InputKind::kClose);
  EXPECT_EQ(answer_of(in), "rrr");
  in = lie(QUANTA_FRAME_REJECT, 11, 0);
  EXPECT_EQ(in.kind, InputKind::kClose);
  // A verdict that is none of the four is a close.
  in = lie(17, 4, 0);
  EXPECT_EQ(in.kind, InputKind::kClose);
  // A reply longer than the room it had is cut to that room.
  in = lie(QUANTA_FRAME_REJECT, 4, 0, 100000);
  EXPECT_EQ(in.kind, InputKind::kAnswer);
  EXPECT_EQ(in.answer_len, QUANTA_FRAME_REPLY_CAPACITY);
  // The honest answer still works.
  in = lie(QUANTA_FRAME_REQUEST, 10, 2);
  EXPECT_EQ(in.kind, InputKind::kRequest);
  EXPECT_EQ(in.length, 10u);
}

TEST(AppWireFormat, DatagramsThatAreNotOneRequestGetNoAnswer) {
  // Half a request: the protocol has nothing to say to it.
  FramedInput in = frame_datagram(kApp, "run 1 no end");
  EXPECT_EQ(in.kind, InputKind::kAnswer);
  EXPECT_EQ(in.reason, RefusalReason::kTruncated);
  EXPECT_EQ(in.answer_len, 0u);
  // A request and more.
  in = frame_datagram(kApp, "run 1 a\nrun 1 b\n");
  EXPECT_EQ(in.kind, InputKind::kAnswer);
  EXPECT_EQ(in.reason, RefusalReason::kLengthMismatch);
  EXPECT_EQ(in.answer_len, 0u);
  // Exactly one.
  in = frame_datagram(kApp, "run 1 a\n");
  EXPECT_EQ(in.kind, InputKind::kRequest);
  EXPECT_EQ(in.length, 8u);
}

TEST(AppWireFormat, ADatagramsCloseOrDiscardIsJustItsAnswer) {
  FramedInput in = frame_datagram(kApp, "quit\n");
  EXPECT_EQ(in.kind, InputKind::kAnswer);
  EXPECT_EQ(answer_of(in), "BYE\n");
  EXPECT_EQ(in.length, 5u);
  // Nothing comes after a datagram to throw away.
  in = frame_datagram(kApp, "blob 50\nabc");
  EXPECT_EQ(in.kind, InputKind::kAnswer);
  EXPECT_EQ(in.discard, 0u);
  EXPECT_EQ(in.length, 11u);
  EXPECT_EQ(answer_of(in), "TOO BIG\n");
}

TEST(AppWireFormat, OverloadedIsTheAppsAnswerOrNothing) {
  unsigned char out[QUANTA_FRAME_REPLY_CAPACITY];
  ASSERT_EQ(kApp.overloaded(5, out), 5u);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(out), 5), "BUSY\n");
  EXPECT_EQ(kLying.overloaded(5, out), 0u);  // no overloaded_reply: nothing is sent
  // One that claims more than its room is cut to it.
  const quanta_protocol boastful = {"boastful", toy_frame, [](void*, uint32_t) { return uint32_t{100000}; }, nullptr,
                                    QUANTA_DATAGRAM_PLAIN};
  EXPECT_EQ(AppWireFormat(boastful, 64, 1).overloaded(5, out), QUANTA_FRAME_REPLY_CAPACITY);
}

TEST(AppWireFormat, ResponsesGoOutWithNothingBeforeThem) {
  Request done;
  done.cookie = 3;
  done.response_len = 10;
  unsigned char out[WireFormat::kMaxPrefixBytes];
  EXPECT_EQ(kApp.reply_prefix(done, out), 0u);
}

// The framer's note goes with the request it framed, and with nothing else.
TEST(AppWireFormat, TheFramersNoteGoesWithItsRequestOnly) {
  FramedInput in = frame(kApp, "run 2 hello\nrun 0 next\n");
  EXPECT_EQ(in.frame_note, uint64_t{6} << 32 | 12);
  in = frame(kApp, "run 0\n");  // no text: the framer noted nothing
  EXPECT_EQ(in.kind, InputKind::kRequest);
  EXPECT_EQ(in.frame_note, 0u);
  EXPECT_EQ(frame(kApp, "bad run 2 hello\n").frame_note, 0u);
  // Through a tenant's socket too, which only changes the class.
  const TenantWireFormat tenant(kApp, 1);
  in = frame(tenant, "run 2 abc\n");
  EXPECT_EQ(in.class_index, 1u);
  EXPECT_EQ(in.frame_note, uint64_t{6} << 32 | 10);
}

// A record is filled with the note of the frame it carries (records are reused, so a note
// of the record's last request must not stay), and the handler gets it in its request.
TEST(FillRequest, TheHandlerGetsTheNoteOfItsOwnFrame) {
  std::byte payload[64];
  std::byte response[64];
  Request r;
  r.payload = payload;
  r.response = response;
  r.response_capacity = sizeof response;
  static std::vector<uint64_t> seen;
  seen.clear();
  const auto handler = [](const quanta_request* request, quanta_response*) { seen.push_back(request->frame_note); };
  for (const std::string bytes : {"run 1 first\n", "run 1\n", "run 2 third one\n"}) {
    const FramedInput in = frame(kApp, bytes);
    ASSERT_EQ(in.kind, InputKind::kRequest);
    fill_request(r, in, reinterpret_cast<const unsigned char*>(bytes.data()), 1, nullptr, 1);
    call_handler(handler, r);
  }
  // And a request of a protocol without notes, in the same record after a noted one.
  const auto wire = wire_request(0, "x", 1);
  fill_request(r, kDefault.frame(wire.data(), static_cast<uint32_t>(wire.size())), wire.data(), 2, nullptr, 1);
  call_handler(handler, r);
  EXPECT_EQ(seen, (std::vector<uint64_t>{uint64_t{6} << 32 | 12, 0, uint64_t{6} << 32 | 16, 0}));
}

TEST(FillRequest, CopiesThePayloadFromItsOffset) {
  const auto bytes = wire_request(1, "payload", 8);
  const FramedInput in = kDefault.frame(bytes.data(), static_cast<uint32_t>(bytes.size()));
  std::byte buffer[16];
  Request r;
  r.payload = buffer;
  fill_request(r, in, bytes.data(), 123, nullptr, 456);
  EXPECT_EQ(r.id, 123u);
  EXPECT_EQ(r.cookie, 8u);
  EXPECT_EQ(r.class_index, 1u);
  EXPECT_EQ(r.payload_len, 7u);
  EXPECT_EQ(r.arrival_tsc, 456u);
  EXPECT_EQ(std::memcmp(buffer, "payload", 7), 0);
}

}  // namespace
}  // namespace quanta
