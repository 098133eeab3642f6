// The TCP front end of `quanta serve`: a listening socket and its connections, each a
// stream of requests in the protocol its WireFormat speaks (the default one of
// quanta/wire.h, or the app's own), whose replies go back in request order.
//
// Everything happens on the dispatcher's thread in poll(), which never waits: an
// epoll_wait with a zero timeout says which sockets can be read (or accepted), each
// readable connection is read once into its bounded buffer and framed, and the replies
// that are due are written.
//
// When to ask epoll (TcpPollMethod): kEpoll asks at every poll, a system call even when
// nothing is ready. kIoUring asks only when an io_uring poll on the epoll set
// (epoll_ready_ring.h) says the set became ready since the last harvest, so a poll that
// finds nothing new makes no system call; a harvest that filled the event array asks
// again at the next poll, since what did not fit is still ready and will not be signalled
// again. Connections with bytes already read or known to wait (the runnable list) are
// served from that list, never from epoll, in both modes.
//
// Who writes the replies: the dispatcher. The workers that finish requests push them to
// one multi-producer queue (the record's pointer; it always has room, since it holds the
// whole pool), and poll() puts each in its connection's reorder window and writes out the
// run of replies that is in order. Writing from the workers would need a lock per
// connection (or a hand-off between workers) to keep the order and to share the write
// backlog, and a worker blocked on a socket would hold back its other requests; from the
// dispatcher each connection has exactly one thread, and ordering is a window lookup.
// The cost is the dispatcher's time on send(), which is what to measure against the UDP
// front end, whose workers send (docs/network.md). A request finished on the polling
// thread itself (the one-thread server, --dispatcher-only) skips the queue: complete()
// puts it in its window and writes it out at once.
//
// Backpressure, per connection: at most max_in_flight_per_connection requests between
// framing and reply; at the limit the connection is not read (its kernel buffer, then the
// client's window, fill) until replies go out. Replies that the client does not read
// accumulate in its write backlog up to max_backlog_bytes; past that the connection is
// closed. Past max_connections a new connection is accepted and closed at once. Every
// such event is counted (net_counters.h).
#pragma once

#include <pthread.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "net/listen_address.h"
#include "net/net_counters.h"
#include "net/tcp_connection.h"
#include "net/udp_front_end.h"
#include "net/wire_format.h"
#include "runtime/doorbell.h"
#include "runtime/mpmc_queue.h"
#include "runtime/request_pool.h"
#include "runtime/source.h"

namespace quanta {

class EpollReadyRing;

// How poll() learns which sockets are ready (see above; `quanta serve --tcp-poll`).
enum class TcpPollMethod { kEpoll, kIoUring };

struct TcpLimits {
  uint32_t max_connections = 256;
  uint32_t max_in_flight_per_connection = 64;
  uint32_t max_backlog_bytes = 1u << 20;  // unwritten reply bytes per connection before it is closed
};

class TcpFrontEnd final : public Source, public Sink {
 public:
  // Binds and listens (std::runtime_error naming the address if it cannot; with kIoUring,
  // IoUringUnavailable, net/io_uring_unavailable.h, when io_uring cannot be set up).
  // `format` must outlive the front end.
  TcpFrontEnd(const ListenAddress& address, const FrontEndLimits& limits, const TcpLimits& tcp,
              const WireFormat& format, NetCounters& counters, TcpPollMethod poll_method = TcpPollMethod::kEpoll);
  ~TcpFrontEnd() override;
  TcpFrontEnd(const TcpFrontEnd&) = delete;
  TcpFrontEnd& operator=(const TcpFrontEnd&) = delete;

  const sockaddr_storage& address() const { return bound_; }

  // Source (the dispatcher's thread).
  uint32_t poll(uint64_t now_tsc, Request** out, uint32_t max) override;
  bool exhausted() const override { return closed_.load(std::memory_order_acquire); }
  void close() override { closed_.store(true, std::memory_order_release); }
  // Sleeps on the epoll set of the listener and the connections (edge-triggered for input
  // and for room to write), and on a bell the workers ring with each completion.
  bool prepare_idle_wait(IdleWait& wait) override;
  void end_idle_wait() override;
  // Sink: complete() on a worker (queued for the dispatcher), reject() on the dispatcher.
  void complete(Request& request) override;
  void reject(Request& request, RejectReason why) override;

  // After the runtime has stopped (no other thread touches this front end any more): puts
  // the last completions in place and writes every connection's due replies, waiting for a
  // slow client up to `wait_ms` in all, then closes the connections.
  void flush_after_stop(int wait_ms = 2000);

  uint32_t open_connections() const { return open_count_; }

 private:
  // Where a record's reply goes, by pool_index (written when framed, read on the dispatcher).
  struct Ticket {
    uint32_t slot = 0;
    uint32_t generation = 0;
    uint64_t sequence = 0;
  };

  // Asks epoll which sockets are ready (when the poll method says it is worth asking) and
  // serves them.
  void harvest(Request** out, uint32_t max, uint32_t& n);
  void accept_new();
  // Frames what the connection's buffer holds, and reads the socket only when that is not
  // a whole request: a connection whose client sent several requests at once is read once
  // for all of them, not once per request (an in-order protocol frames one at a time).
  void read_and_frame(uint32_t slot, Request** out, uint32_t max, uint32_t& n);
  // Frames requests from the buffer; true when it stopped because the buffer holds no
  // whole request (so reading the socket could let it go on), false when it stopped for
  // another reason (the in-flight limit, a full batch, a closed or closing connection).
  bool frame(uint32_t slot, Request** out, uint32_t max, uint32_t& n);
  // Gives a request of connection `slot` its sequence number and window slot, for a reply
  // the front end answers itself or one the runtime will finish.
  uint64_t take_sequence(TcpConnection& c);
  // Answers the next request of connection `slot` with `len` bytes of `answer` (0: nothing).
  void answer_now(uint32_t slot, const unsigned char* answer, uint32_t len);
  // A request back from the runtime: finished (`ran`), or dropped by it.
  void place_completion(Request& request, bool ran);
  void drain_completions();
  // Moves the replies now in order to the write buffer, writes, and closes or resumes the
  // connection as its state says.
  void advance(uint32_t slot);
  void write_out(uint32_t slot);
  uint32_t take_requests(Request** out, uint32_t max);
  // Writes the held-back replies of every connection that had no request handed out in
  // this poll (or holds kCorkedRepliesAtMost already); all of them with `all`.
  void flush_corked(bool all);
  // Sends `head` then `body` with one sendmsg, straight from where they are, and puts what
  // the kernel did not take in the connection's (empty) backlog. False on a socket error
  // (the caller closes the connection).
  bool send_direct(TcpConnection& c, const unsigned char* head, uint32_t head_len, const unsigned char* body,
                   uint32_t body_len);
  // One recv into the connection's buffer, if it has room (clears `unread` once the
  // socket is found empty; may close the connection on an error).
  void receive(uint32_t slot);
  void close_connection(uint32_t slot);
  void maybe_finish(uint32_t slot);

  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  std::unique_ptr<EpollReadyRing> ready_ring_;  // kIoUring only
  // kIoUring: ask epoll at the next poll whatever the ring says (the last harvest filled
  // its array; or the dispatcher slept on the set, and its wake may beat the ring's).
  bool harvest_again_ = false;
  // Polls in a row that skipped epoll because connections already buffered gave requests
  // (kSkippedHarvestsAtMost in tcp_front_end.cc bounds them).
  uint32_t skipped_harvests_ = 0;
  uint64_t ring_errors_seen_ = 0;
  sockaddr_storage bound_{};
  FrontEndLimits limits_;
  TcpLimits tcp_;
  const WireFormat& format_;
  uint32_t in_flight_limit_;  // per connection: tcp_.max_in_flight_per_connection, or 1 in order
  NetCounters& counters_;
  uint64_t next_id_ = 0;  // the records' ids, in arrival order
  RequestPool pool_;
  std::vector<Ticket> tickets_;
  MpmcQueue<Request*> finished_;        // workers -> dispatcher
  std::atomic<pthread_t> poll_thread_{}; // the thread that runs poll() (0 until it first does)
  Doorbell finished_bell_;              // --idle block: a completion wakes the dispatcher
  std::vector<TcpConnection> connections_;
  std::vector<uint32_t> free_slots_;
  std::vector<uint32_t> runnable_;      // connections with framable bytes and room
  std::vector<uint32_t> scratch_;       // the list being worked through (kept: no allocation per poll)
  std::vector<uint32_t> corked_;        // connections holding replies back (advance, flush_corked)
  std::vector<uint32_t> corked_scratch_;
  uint64_t poll_serial_ = 0;            // poll() calls so far
  uint32_t open_count_ = 0;
  std::atomic<bool> closed_{false};
};

}  // namespace quanta
