// One TCP connection of the front end, as the dispatcher's thread keeps it: the bytes read
// but not yet framed, the replies waiting for their turn, and the bytes not yet written.
// Every buffer has a fixed bound: the read buffer holds one largest request, the reorder
// window one slot per request the connection may have in flight, and the write backlog a
// byte limit past which the client is judged not to read and the connection is closed.
#pragma once

#include <cstdint>
#include <vector>

#include "quanta/protocol.h"
#include "runtime/request.h"

namespace quanta {

// A reply waiting in a connection's reorder window: a finished request, or an answer the
// front end gave itself (the protocol's overload answer, or its answer to input it would
// not run) that still must keep its place.
struct PendingReply {
  bool ready = false;
  Request* request = nullptr;  // a finished request: the record, released once its bytes are copied out
  uint32_t answer_len = 0;     // otherwise: the answer's bytes (0: nothing to send)
  unsigned char answer[QUANTA_FRAME_REPLY_CAPACITY];
};

struct TcpConnection {
  int fd = -1;
  uint32_t generation = 0;      // changes when the slot is reused: late completions are told apart
  // Framing.
  std::vector<unsigned char> in;  // capacity: the largest request (WireFormat::max_frame_bytes)
  uint32_t in_len = 0;
  uint64_t discard = 0;           // bytes still to come that the protocol said to throw away
  // Ordering: request k of the connection gets sequence k; its reply waits in window[k % size]
  // until every earlier one has been written out.
  std::vector<PendingReply> window;
  uint64_t next_sequence = 0;   // the next request's
  uint64_t next_reply = 0;      // the next reply to go out
  // Writing.
  std::vector<unsigned char> out;
  std::size_t out_sent = 0;     // bytes of `out` already written
  // Edge-triggered epoll reported bytes that may not all have been read yet (set by an
  // event, cleared when a read finds the socket empty).
  bool unread = false;
  bool hangup_seen = false;     // epoll reported the client's end of the stream
  bool on_runnable_list = false;  // has bytes to frame without waiting for the socket
  // Replies held back in `out` while requests of the connection wait in its read buffer
  // (TcpFrontEnd::advance): written together, one send for several, as memcached does.
  uint32_t corked_replies = 0;
  bool on_corked_list = false;
  uint64_t framed_at_poll = 0;  // the front end's poll that last handed out one of its requests
  // State.
  bool open = false;
  bool paused = false;          // at the in-flight limit: not reading
  bool read_closed = false;     // the client sent EOF: answer what came, then close
  bool closing = false;         // the protocol ended the stream (garbage, quit): write out what is due, then close
  bool stopped_mid_request = false;  // the stream ended inside a request (counted as such)

  uint64_t in_flight() const { return next_sequence - next_reply; }
  bool reading() const { return open && !paused && !read_closed && !closing; }
  std::size_t backlog_bytes() const { return out.size() - out_sent; }
};

}  // namespace quanta
