// The protocol a front end speaks, behind one interface: quanta's default protocol
// (quanta/wire.h, a binary header around each request and reply) or the app's own
// (quanta/protocol.h, the app's framer and its bytes as they are). The UDP and TCP front
// ends ask it where a request ends, what to answer instead of one that cannot run, and what
// goes before a finished request's response bytes; they never look at the bytes themselves.
//
// Everything here runs on the dispatcher's thread (framing, answers) or on a worker
// (reply_prefix): no allocation, no locks.
#pragma once

#include <cstdint>

#include "quanta/protocol.h"
#include "quanta/wire.h"
#include "runtime/request.h"

namespace quanta {

// What framing found at the front of a run of bytes.
enum class InputKind {
  kNeedMore,  // no whole request yet
  kRequest,   // a request to run: `length` bytes
  kAnswer,    // `length` bytes that will not run: send `answer` in their place, go on
  kClose,     // nothing after this point can be framed: send `answer`, then close
};

// Why input was answered instead of run (the counters' reasons).
enum class RefusalReason {
  kNone,
  kBadMagic,        // default protocol: not a wire-protocol header
  kTooLarge,        // over --max-payload-bytes (or the protocol's own size limit)
  kBadClass,        // a class index the app does not serve
  kLengthMismatch,  // a datagram that is not exactly one request
  kTruncated,       // a datagram shorter than one request's header
  kProtocolRefused, // the app's framer answered it itself (a bad command, a quit)
};

struct FramedInput {
  InputKind kind = InputKind::kNeedMore;
  RefusalReason reason = RefusalReason::kNone;
  uint32_t length = 0;         // bytes at the front it takes (kRequest, kAnswer)
  uint32_t discard = 0;        // kAnswer: bytes after those to read and throw away (streams)
  uint32_t class_index = 0;    // kRequest
  uint64_t request_id = 0;     // the client's id where the protocol carries one (default), else 0
  uint32_t payload_offset = 0; // kRequest: where the handler's payload starts in the frame
  uint32_t payload_len = 0;
  uint64_t frame_note = 0;     // kRequest: the app framer's note for the handler (quanta_frame.note)
  uint32_t answer_len = 0;     // kAnswer, kClose: bytes of `answer` to send (0: none)
  unsigned char answer[QUANTA_FRAME_REPLY_CAPACITY];
};

class WireFormat {
 public:
  // The longest reply prefix any format writes.
  static constexpr uint32_t kMaxPrefixBytes = 32;

  virtual ~WireFormat() = default;
  // The most bytes one request takes on the wire: what a connection's read buffer holds.
  virtual uint32_t max_frame_bytes() const = 0;
  // Frames the request at the front of `data` (`len` > 0 bytes) of a stream.
  virtual FramedInput frame(const unsigned char* data, uint32_t len) const = 0;
  // Frames a datagram's `len` bytes, which must be exactly one request: anything else is
  // an answer (or nothing) with its reason, never kNeedMore.
  FramedInput frame_datagram(const unsigned char* data, uint32_t len) const;
  // Writes what goes on the wire before a finished request's response bytes into `out`
  // (kMaxPrefixBytes) and returns its length.
  virtual uint32_t reply_prefix(const Request& done, unsigned char* out) const = 0;
  // Writes the answer for a request the server had no room for (`request_id` as framed)
  // into `out` (QUANTA_FRAME_REPLY_CAPACITY bytes) and returns its length; 0: nothing.
  virtual uint32_t overloaded(uint64_t request_id, unsigned char* out) const = 0;
  // Whether a finished request with no response bytes gets no reply at all (memcached's
  // noreply), rather than a reply with an empty response.
  virtual bool empty_response_is_silent() const = 0;
  // Whether a connection's requests must run one at a time, in order
  // (QUANTA_PROTOCOL_IN_ORDER).
  virtual bool runs_in_order() const { return false; }

 protected:
  // How a datagram that is a partial request is answered (kNeedMore from frame()).
  virtual FramedInput truncated_datagram(const unsigned char* data, uint32_t len) const = 0;
  // How a datagram holding a request and more bytes after it is answered.
  virtual FramedInput overlong_datagram(const FramedInput& first) const = 0;
  // The same of another format (a format that wraps one forwards to it).
  static FramedInput truncated_datagram_of(const WireFormat& f, const unsigned char* data, uint32_t len) {
    return f.truncated_datagram(data, len);
  }
  static FramedInput overlong_datagram_of(const WireFormat& f, const FramedInput& first) {
    return f.overlong_datagram(first);
  }
};

// quanta/wire.h: requests carry their class and id in a 16-byte header, replies a 32-byte
// header with the kind (OK, OVERLOADED, BAD_REQUEST) and the handler's value and status.
class DefaultWireFormat final : public WireFormat {
 public:
  DefaultWireFormat(uint32_t max_payload_bytes, uint32_t class_count)
      : max_payload_bytes_(max_payload_bytes), class_count_(class_count) {}
  uint32_t max_frame_bytes() const override { return QUANTA_WIRE_REQUEST_HEADER + max_payload_bytes_; }
  FramedInput frame(const unsigned char* data, uint32_t len) const override;
  uint32_t reply_prefix(const Request& done, unsigned char* out) const override;
  uint32_t overloaded(uint64_t request_id, unsigned char* out) const override;
  bool empty_response_is_silent() const override { return false; }

 protected:
  FramedInput truncated_datagram(const unsigned char* data, uint32_t len) const override;
  FramedInput overlong_datagram(const FramedInput& first) const override;

 private:
  uint32_t max_payload_bytes_;
  uint32_t class_count_;
};

// The app's own protocol: its framer says where a request ends and which class it is; the
// handler's response bytes are the reply, nothing added.
class AppWireFormat final : public WireFormat {
 public:
  AppWireFormat(const quanta_protocol& protocol, uint32_t max_request_bytes, uint32_t class_count)
      : protocol_(protocol), max_request_bytes_(max_request_bytes), class_count_(class_count) {}
  uint32_t max_frame_bytes() const override { return max_request_bytes_; }
  FramedInput frame(const unsigned char* data, uint32_t len) const override;
  uint32_t reply_prefix(const Request&, unsigned char*) const override { return 0; }
  uint32_t overloaded(uint64_t request_id, unsigned char* out) const override;
  bool empty_response_is_silent() const override { return true; }
  bool runs_in_order() const override { return (protocol_.flags & QUANTA_PROTOCOL_IN_ORDER) != 0; }

 protected:
  FramedInput truncated_datagram(const unsigned char* data, uint32_t len) const override;
  FramedInput overlong_datagram(const FramedInput& first) const override;

 private:
  const quanta_protocol& protocol_;
  uint32_t max_request_bytes_;
  uint32_t class_count_;
};

// Another format's framing and replies, with every request put in one class whatever it
// names: `quanta serve --be-listen`, a tenant's own socket whose requests are all its class.
// The request is still checked as the inner format checks it (a class the app does not
// serve is answered BAD_REQUEST, as on any socket).
class TenantWireFormat final : public WireFormat {
 public:
  TenantWireFormat(const WireFormat& inner, uint32_t class_index) : inner_(inner), class_index_(class_index) {}
  uint32_t max_frame_bytes() const override { return inner_.max_frame_bytes(); }
  FramedInput frame(const unsigned char* data, uint32_t len) const override {
    FramedInput in = inner_.frame(data, len);
    if (in.kind == InputKind::kRequest) in.class_index = class_index_;
    return in;
  }
  uint32_t reply_prefix(const Request& done, unsigned char* out) const override {
    return inner_.reply_prefix(done, out);
  }
  uint32_t overloaded(uint64_t request_id, unsigned char* out) const override {
    return inner_.overloaded(request_id, out);
  }
  bool empty_response_is_silent() const override { return inner_.empty_response_is_silent(); }
  bool runs_in_order() const override { return inner_.runs_in_order(); }

 protected:
  FramedInput truncated_datagram(const unsigned char* data, uint32_t len) const override {
    return truncated_datagram_of(inner_, data, len);
  }
  FramedInput overlong_datagram(const FramedInput& first) const override {
    return overlong_datagram_of(inner_, first);
  }

 private:
  const WireFormat& inner_;
  uint32_t class_index_;
};

// Fills a request record from a framed request (`data` at the frame's first byte) for
// `sink`, arrived at `now_tsc`, with the id the front end gives it.
void fill_request(Request& r, const FramedInput& in, const unsigned char* data, uint64_t id, Sink* sink,
                  uint64_t now_tsc);

}  // namespace quanta
