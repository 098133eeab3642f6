#include "net/tcp_front_end.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "core/tsc.h"
#include "net/epoll_ready_ring.h"
#include "net/plain_syscalls.h"
#include "quanta/wire.h"

namespace quanta {
namespace {

constexpr uint64_t kListenerTag = UINT64_MAX;  // epoll data of the listening socket
constexpr int kEventsPerPoll = 64;
// A poll whose runnable connections (bytes already buffered, a reply just out) gave
// requests leaves epoll unasked up to this many times in a row. A server that has fallen
// behind then takes a connection's queued requests without an epoll_wait each (an in-order
// connection gives one request per poll); what epoll holds meanwhile (new bytes, a new
// connection, room to write) waits at most this many polls. memcached does the same with
// its requests per event (20).
constexpr uint32_t kSkippedHarvestsAtMost = 7;
// A connection whose read buffer holds more bytes when a reply is done (pipelined
// requests) keeps the reply back and writes it with the replies of the requests after it:
// on loopback each send costs the server a transmit and the client a wake-up, most of the
// kernel's share of a GET. A reply is held at most until a poll hands out no request of
// its connection (the one after it is long, or not all there yet) or this many are held,
// and never while the dispatcher sleeps. memcached writes the replies of one read together.
constexpr uint32_t kCorkedRepliesAtMost = 8;

void watch(int epoll_fd, int fd, uint32_t slot, uint32_t events, int op) {
  epoll_event e{};
  e.events = events;
  e.data.u64 = slot;
  epoll_ctl(epoll_fd, op, fd, &e);
}

}  // namespace

TcpFrontEnd::TcpFrontEnd(const ListenAddress& address, const FrontEndLimits& limits, const TcpLimits& tcp,
                         const WireFormat& format, NetCounters& counters, TcpPollMethod poll_method)
    : limits_(limits),
      tcp_(tcp),
      format_(format),
      // In-order protocols: one request of a connection in the runtime at a time; the next
      // is framed when its reply is out.
      in_flight_limit_(format.runs_in_order() ? 1 : tcp.max_in_flight_per_connection),
      counters_(counters),
      pool_(limits.max_in_flight, limits.max_payload_bytes, limits.max_response_bytes),
      tickets_(limits.max_in_flight),
      finished_(limits.max_in_flight),
      connections_(tcp.max_connections) {
  listen_fd_ = bind_listen_socket(address, 128);
  bound_ = bound_address(listen_fd_);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) {
    ::close(listen_fd_);
    throw std::runtime_error(std::string("cannot create an epoll instance: ") + std::strerror(errno));
  }
  if (poll_method == TcpPollMethod::kIoUring) {
    try {
      ready_ring_ = std::make_unique<EpollReadyRing>(epoll_fd_);
    } catch (...) {
      ::close(epoll_fd_);
      ::close(listen_fd_);
      throw;
    }
  }
  epoll_event e{};
  e.events = EPOLLIN;
  e.data.u64 = kListenerTag;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &e);
  for (uint32_t i = tcp.max_connections; i > 0; --i) free_slots_.push_back(i - 1);
  runnable_.reserve(tcp.max_connections);
  scratch_.reserve(tcp.max_connections);
  corked_.reserve(tcp.max_connections);
  corked_scratch_.reserve(tcp.max_connections);
}

TcpFrontEnd::~TcpFrontEnd() {
  for (TcpConnection& c : connections_) {
    if (c.open) ::close(c.fd);
  }
  ready_ring_.reset();  // its poll holds the epoll set: gone first
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

uint32_t TcpFrontEnd::poll(uint64_t, Request** out, uint32_t max) {
  // Remembered for complete(): only this thread ever stores it, and a worker that reads it
  // while it is set can only find another thread's id, never its own.
  if (pthread_equal(poll_thread_.load(std::memory_order_relaxed), pthread_self()) == 0) {
    poll_thread_.store(pthread_self(), std::memory_order_relaxed);
  }
  ++poll_serial_;
  const uint32_t n = take_requests(out, max);
  if (!corked_.empty()) flush_corked(closed_.load(std::memory_order_relaxed));
  return n;
}

void TcpFrontEnd::flush_corked(bool all) {
  corked_scratch_.swap(corked_);
  for (uint32_t slot : corked_scratch_) {
    TcpConnection& c = connections_[slot];
    c.on_corked_list = false;
    if (!c.open) continue;
    if (!all && c.framed_at_poll == poll_serial_ && c.corked_replies < kCorkedRepliesAtMost) {
      c.on_corked_list = true;  // its next request runs now: its reply joins these
      corked_.push_back(slot);
      continue;
    }
    write_out(slot);
  }
  corked_scratch_.clear();
}

uint32_t TcpFrontEnd::take_requests(Request** out, uint32_t max) {
  drain_completions();
  // Stopping: no new connection, no new request; what is in flight is still answered.
  if (closed_.load(std::memory_order_relaxed)) {
    if (listen_fd_ >= 0) {
      // Closed rather than left unread, so that a client trying to connect now is refused
      // instead of waiting in the backlog for a server that will not accept it.
      ::close(listen_fd_);
      listen_fd_ = -1;
    }
    return 0;
  }
  uint32_t n = 0;
  if (!runnable_.empty()) {
    scratch_.swap(runnable_);
    for (uint32_t slot : scratch_) {
      connections_[slot].on_runnable_list = false;
      if (connections_[slot].open) read_and_frame(slot, out, max, n);
    }
    scratch_.clear();
  }
  if (n > 0 && !harvest_again_ && skipped_harvests_ < kSkippedHarvestsAtMost) {
    ++skipped_harvests_;
    return n;
  }
  skipped_harvests_ = 0;
  harvest(out, max, n);
  return n;
}

void TcpFrontEnd::harvest(Request** out, uint32_t max, uint32_t& n) {
  if (ready_ring_ != nullptr) {
    // take_signal() every time: it also consumes the ring's completions.
    const bool signalled = ready_ring_->take_signal();
    if (ready_ring_->errors() != ring_errors_seen_) {
      counters_.add(NetCounter::kTcpPollRingErrors, ready_ring_->errors() - ring_errors_seen_);
      ring_errors_seen_ = ready_ring_->errors();
    }
    if (!signalled && !harvest_again_) return;  // nothing became ready since the last harvest
  }
  epoll_event events[kEventsPerPoll];
  const int ready = plain::epoll_wait(epoll_fd_, events, kEventsPerPoll, 0);
  counters_.add(NetCounter::kTcpEpollWaits);
  // A full array may have left ready sockets behind, and edge-triggered sockets that are
  // already on the ready list raise no new signal: ask again at the next poll. (An error,
  // EINTR say, took nothing: the same.)
  harvest_again_ = ready == kEventsPerPoll || ready < 0;
  for (int i = 0; i < ready; ++i) {
    if (events[i].data.u64 == kListenerTag) {
      accept_new();
      continue;
    }
    const auto slot = static_cast<uint32_t>(events[i].data.u64);
    if (!connections_[slot].open) continue;
    if ((events[i].events & EPOLLERR) != 0) {
      counters_.add(NetCounter::kTcpClosedError);
      close_connection(slot);
      continue;
    }
    if ((events[i].events & EPOLLOUT) != 0 && connections_[slot].backlog_bytes() > 0) {
      write_out(slot);  // the client made room for its backlog
      if (!connections_[slot].open) continue;
    }
    if ((events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) != 0) {
      connections_[slot].unread = true;
      if ((events[i].events & (EPOLLRDHUP | EPOLLHUP)) != 0) connections_[slot].hangup_seen = true;
      read_and_frame(slot, out, max, n);
    }
  }
}

void TcpFrontEnd::accept_new() {
  for (;;) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // nothing more to accept (or a transient error: the next poll retries)
    if (free_slots_.empty()) {
      counters_.add(NetCounter::kTcpRefusedOverLimit);
      ::close(fd);
      continue;
    }
    const uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    TcpConnection& c = connections_[slot];
    const int on = 1;
    // Replies are small and each is complete when written: do not hold them back.
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    c.fd = fd;
    c.in.assign(format_.max_frame_bytes(), 0);
    c.in_len = 0;
    c.discard = 0;
    c.window.assign(tcp_.max_in_flight_per_connection, PendingReply{});
    c.next_sequence = c.next_reply = 0;
    c.out.clear();
    c.out_sent = 0;
    c.open = true;
    c.paused = c.read_closed = c.closing = c.stopped_mid_request = false;
    ++open_count_;
    counters_.add(NetCounter::kTcpConnections);
    c.unread = false;
    c.hangup_seen = false;
    // Edge-triggered, every event at once, set up once: pausing a connection (one request
    // in flight for in-order protocols, so after every request) and resuming it costs no
    // system call; the connection remembers instead whether bytes may still wait unread.
    watch(epoll_fd_, fd, slot, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, EPOLL_CTL_ADD);
  }
}

void TcpFrontEnd::receive(uint32_t slot) {
  TcpConnection& c = connections_[slot];
  const std::size_t space = c.in.size() - c.in_len;
  if (space == 0) return;  // framing makes room first; `unread` stays set
  const ssize_t got = plain::recv(c.fd, c.in.data() + c.in_len, space, MSG_DONTWAIT);
  counters_.add(NetCounter::kTcpReads);
  if (got > 0) {
    c.in_len += static_cast<uint32_t>(got);
    // Less than the room there was: the socket is empty. A full buffer may have left more.
    if (static_cast<std::size_t>(got) < space) {
      c.unread = false;
      // The end of the stream came with those bytes (epoll said so); it has no edge of its own left.
      if (c.hangup_seen) c.read_closed = true;
    }
  } else if (got == 0) {
    c.unread = false;
    c.read_closed = true;  // the client will send no more: answer what it sent, then close
  } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
    c.unread = false;
  } else if (errno != EINTR) {
    counters_.add(NetCounter::kTcpClosedError);
    close_connection(slot);
  }
}

void TcpFrontEnd::read_and_frame(uint32_t slot, Request** out, uint32_t max, uint32_t& n) {
  TcpConnection& c = connections_[slot];
  // The buffer first: bytes read earlier may hold the next request already, and a recv
  // made while they do would take a system call for bytes that can wait until the buffer
  // runs dry (the socket stays `unread` meanwhile, so nothing is forgotten).
  if (!frame(slot, out, max, n) || !c.open) {
    if (c.open) maybe_finish(slot);
    return;
  }
  if (c.unread && c.reading()) {
    receive(slot);
    if (!c.open) return;
    frame(slot, out, max, n);
    if (!c.open) return;
  }
  // Edge-triggered epoll will not report bytes that were already waiting: whoever made
  // the connection readable again (room in its buffer, its reply out) reads them.
  if (c.unread && c.reading() && c.in_len < c.in.size() && !c.on_runnable_list) {
    c.on_runnable_list = true;
    runnable_.push_back(slot);
  }
  maybe_finish(slot);
}

bool TcpFrontEnd::frame(uint32_t slot, Request** out, uint32_t max, uint32_t& n) {
  TcpConnection& c = connections_[slot];
  bool incomplete = false;
  bool incomplete_or_empty = false;
  while (c.open && !c.closing) {
    if (c.in_flight() >= in_flight_limit_) {
      // Backpressure: stop reading until replies go out (advance() resumes).
      if (!c.paused && !c.read_closed) {
        c.paused = true;
        counters_.add(NetCounter::kTcpPaused);
      }
      return false;
    }
    if (n >= max) {
      // The dispatcher's batch is full: frame the rest at the next poll, and read there
      // what epoll reported and nobody has read yet (it will not be reported again).
      if ((c.in_len > 0 || c.unread) && !c.on_runnable_list) {
        c.on_runnable_list = true;
        runnable_.push_back(slot);
      }
      return false;
    }
    if (c.discard > 0 && c.in_len > 0) {
      // Bytes the protocol refused before they came (a value too large to buffer).
      const auto dropped = static_cast<uint32_t>(std::min<uint64_t>(c.discard, c.in_len));
      std::memmove(c.in.data(), c.in.data() + dropped, c.in_len - dropped);
      c.in_len -= dropped;
      c.discard -= dropped;
    }
    const FramedInput in = c.in_len > 0 ? format_.frame(c.in.data(), c.in_len) : FramedInput{};
    if (in.kind == InputKind::kNeedMore) {
      incomplete = c.in_len > 0;
      incomplete_or_empty = true;
      break;
    }
    if (in.kind == InputKind::kClose) {
      // Nothing after this point can be framed (or the client asked to leave): answer
      // after the replies still due, then close.
      counters_.add(in.reason == RefusalReason::kProtocolRefused ? NetCounter::kTcpClosedByProtocol
                                                                   : refusal_counter(false, in.reason));
      c.closing = true;
      if (in.answer_len > 0) {
        answer_now(slot, in.answer, in.answer_len);
      } else {
        maybe_finish(slot);
      }
      return false;
    }
    const uint32_t total = in.length;
    if (in.kind == InputKind::kAnswer) {
      // Still framed: answer this one in its turn and go on.
      counters_.add(refusal_counter(false, in.reason));
      c.discard = in.discard;
      answer_now(slot, in.answer, in.answer_len);
    } else if (Request* r = pool_.acquire(); r == nullptr) {
      counters_.add(NetCounter::kTcpOverloaded);
      unsigned char answer[QUANTA_FRAME_REPLY_CAPACITY];
      answer_now(slot, answer, format_.overloaded(in.request_id, answer));
    } else {
      fill_request(*r, in, c.in.data(), next_id_++, this, read_tsc());
      tickets_[r->pool_index] = Ticket{slot, c.generation, take_sequence(c)};
      c.framed_at_poll = poll_serial_;
      counters_.add(NetCounter::kTcpRequests);
      out[n++] = r;
    }
    if (!c.open) return false;  // answering closed it (the client stopped reading)
    std::memmove(c.in.data(), c.in.data() + total, c.in_len - total);
    c.in_len -= total;
  }
  if (c.open && c.read_closed && incomplete) {
    // The client ended the stream inside a request: that request can never be complete.
    counters_.add(NetCounter::kTcpPeerStoppedMidRequest);
    c.stopped_mid_request = true;
    c.in_len = 0;
  }
  return c.open && !c.closing && incomplete_or_empty;
}

uint64_t TcpFrontEnd::take_sequence(TcpConnection& c) {
  const uint64_t sequence = c.next_sequence++;
  PendingReply& p = c.window[sequence % c.window.size()];
  p.ready = false;
  p.request = nullptr;
  p.answer_len = 0;
  return sequence;
}

void TcpFrontEnd::answer_now(uint32_t slot, const unsigned char* answer, uint32_t len) {
  TcpConnection& c = connections_[slot];
  PendingReply& p = c.window[take_sequence(c) % c.window.size()];
  p.ready = true;
  p.answer_len = std::min(len, QUANTA_FRAME_REPLY_CAPACITY);
  std::memcpy(p.answer, answer, p.answer_len);
  advance(slot);
}

void TcpFrontEnd::complete(Request& request) {
  // Finished on the thread that polls (the one-thread server, or a dispatcher that runs
  // requests itself): put it in place now, as drain_completions() would at the next poll,
  // without the queue's two atomic updates and the bell's fence. complete() is never
  // called from inside poll(), so the front end is between operations here.
  if (pthread_equal(pthread_self(), poll_thread_.load(std::memory_order_relaxed)) != 0) {
    place_completion(request, true);
    return;
  }
  // The queue holds the whole pool and each record is in it at most once: never full.
  finished_.try_push(&request);
  finished_bell_.ring();
}

bool TcpFrontEnd::prepare_idle_wait(IdleWait& wait) {
  if (!runnable_.empty()) return false;
  if (!corked_.empty()) flush_corked(true);  // no reply waits out a sleep
  // Readiness signalled but not yet harvested: the next poll has work.
  if (harvest_again_ || (ready_ring_ != nullptr && ready_ring_->signalled())) return false;
  // With the ring too the dispatcher sleeps on the epoll set itself (level-triggered: a
  // set with an event nobody harvested ends the sleep at once).
  if (!wait.add_fd(epoll_fd_) || !wait.add_fd(finished_bell_.fd())) return false;
  finished_bell_.arm();
  return finished_.looks_empty();
}

void TcpFrontEnd::end_idle_wait() {
  finished_bell_.disarm();
  // The set's event wakes the sleeper and the ring's poll from one wait queue, in an order
  // that is the kernel's: the dispatcher may be back before the ring's flag is up. One
  // epoll_wait after each sleep, beside the sleep's own system calls, rather than a poll
  // that misses what woke it.
  if (ready_ring_ != nullptr) harvest_again_ = true;
}

void TcpFrontEnd::reject(Request& request, RejectReason) {
  counters_.add(NetCounter::kTcpOverloaded);
  place_completion(request, false);
}

void TcpFrontEnd::drain_completions() {
  Request* r = nullptr;
  while (finished_.try_pop(r)) place_completion(*r, true);
}

void TcpFrontEnd::place_completion(Request& request, bool ran) {
  const Ticket ticket = tickets_[request.pool_index];
  TcpConnection& c = connections_[ticket.slot];
  if (!c.open || c.generation != ticket.generation) {
    counters_.add(NetCounter::kTcpRepliesDiscarded);
    pool_.release(request);
    return;
  }
  PendingReply& p = c.window[ticket.sequence % c.window.size()];
  p.ready = true;
  if (ran) {
    p.request = &request;
  } else {
    p.answer_len = format_.overloaded(request.cookie, p.answer);
    pool_.release(request);
  }
  advance(ticket.slot);
}

void TcpFrontEnd::advance(uint32_t slot) {
  TcpConnection& c = connections_[slot];
  // Requests wait in the buffer: hold the replies back for theirs (kCorkedRepliesAtMost).
  const bool cork = c.in_len > 0 && c.corked_replies < kCorkedRepliesAtMost && !c.closing;
  const uint64_t first = c.next_reply;
  while (c.next_reply < c.next_sequence) {
    PendingReply& p = c.window[c.next_reply % c.window.size()];
    if (!p.ready) break;
    if (p.request != nullptr) {
      unsigned char head[WireFormat::kMaxPrefixBytes];
      const uint32_t head_len = format_.reply_prefix(*p.request, head);
      const auto* bytes = reinterpret_cast<const unsigned char*>(p.request->response);
      const uint64_t after = c.next_reply + 1;
      const bool last_due = after == c.next_sequence || !c.window[after % c.window.size()].ready;
      // Counted before the bytes can leave: a client that has its reply and then asks for
      // a snapshot must find it counted (sent = answered + dropped at any moment it can see).
      counters_.add(NetCounter::kTcpRepliesOk);
      if (last_due && c.backlog_bytes() == 0 && !cork) {
        // The usual case (always, for an in-order protocol): one reply due, nothing waiting
        // before it. Written from the record itself; only what the kernel does not take
        // is copied to the backlog.
        if (!send_direct(c, head, head_len, bytes, p.request->response_len)) {
          pool_.release(*p.request);
          p.request = nullptr;
          p.ready = false;
          counters_.add(NetCounter::kTcpClosedError);
          close_connection(slot);
          return;
        }
      } else {
        c.out.insert(c.out.end(), head, head + head_len);
        c.out.insert(c.out.end(), bytes, bytes + p.request->response_len);
      }
      pool_.release(*p.request);
    } else {
      c.out.insert(c.out.end(), p.answer, p.answer + p.answer_len);
    }
    p.ready = false;
    p.request = nullptr;
    p.answer_len = 0;
    ++c.next_reply;
  }
  if (c.backlog_bytes() > tcp_.max_backlog_bytes) {
    // The client does not read its replies: keeping them would grow without bound.
    counters_.add(NetCounter::kTcpClosedSlowReader);
    close_connection(slot);
    return;
  }
  if (cork && c.backlog_bytes() > 0) {
    c.corked_replies += static_cast<uint32_t>(c.next_reply - first);
    if (!c.on_corked_list) {
      c.on_corked_list = true;
      corked_.push_back(slot);
    }
  } else {
    write_out(slot);
  }
  if (!c.open) return;
  if (c.paused && c.in_flight() < in_flight_limit_) {
    c.paused = false;
    // Requests may already wait in the buffer or the socket, with nothing new to wake epoll.
    if ((c.in_len > 0 || c.unread) && !c.on_runnable_list) {
      c.on_runnable_list = true;
      runnable_.push_back(slot);
    }
  }
  maybe_finish(slot);
}

bool TcpFrontEnd::send_direct(TcpConnection& c, const unsigned char* head, uint32_t head_len,
                              const unsigned char* body, uint32_t body_len) {
  const std::size_t total = std::size_t{head_len} + body_len;
  if (total == 0) return true;  // a silent reply (memcached's noreply)
  iovec parts[2] = {{const_cast<unsigned char*>(head), head_len}, {const_cast<unsigned char*>(body), body_len}};
  msghdr m{};
  m.msg_iov = head_len > 0 ? parts : parts + 1;
  m.msg_iovlen = head_len > 0 ? 2 : 1;
  ssize_t sent = plain::sendmsg(c.fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
  counters_.add(NetCounter::kTcpSends);
  if (sent < 0) {
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
    sent = 0;  // the client's window is full: all of it waits in the backlog (EPOLLOUT resumes it)
  }
  auto taken = static_cast<std::size_t>(sent);
  if (taken < head_len) c.out.insert(c.out.end(), head + taken, head + head_len);
  taken = taken > head_len ? taken - head_len : 0;
  if (taken < body_len) c.out.insert(c.out.end(), body + taken, body + body_len);
  return true;
}

void TcpFrontEnd::write_out(uint32_t slot) {
  TcpConnection& c = connections_[slot];
  while (c.backlog_bytes() > 0) {
    const ssize_t sent = plain::send(c.fd, c.out.data() + c.out_sent, c.backlog_bytes(), MSG_DONTWAIT | MSG_NOSIGNAL);
    counters_.add(NetCounter::kTcpSends);
    if (sent > 0) {
      c.out_sent += static_cast<std::size_t>(sent);
      continue;
    }
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;  // EPOLLOUT resumes it
    counters_.add(NetCounter::kTcpClosedError);
    close_connection(slot);
    return;
  }
  if (c.out_sent == c.out.size()) {
    c.out.clear();
    c.out_sent = 0;
    c.corked_replies = 0;
  } else if (c.out_sent > c.out.size() / 2) {
    c.out.erase(c.out.begin(), c.out.begin() + static_cast<std::ptrdiff_t>(c.out_sent));
    c.out_sent = 0;
  }
  maybe_finish(slot);
}

void TcpFrontEnd::maybe_finish(uint32_t slot) {
  TcpConnection& c = connections_[slot];
  if (!c.open || !(c.read_closed || c.closing) || c.in_flight() > 0 || c.backlog_bytes() > 0) return;
  // A client that ended its stream between requests: the ordinary way to leave.
  if (c.read_closed && !c.closing && !c.stopped_mid_request) counters_.add(NetCounter::kTcpClosedByPeer);
  close_connection(slot);
}

void TcpFrontEnd::close_connection(uint32_t slot) {
  TcpConnection& c = connections_[slot];
  if (!c.open) return;
  ::close(c.fd);  // also leaves the epoll set
  for (PendingReply& p : c.window) {
    if (p.request != nullptr) pool_.release(*p.request);
    p.ready = false;
    p.request = nullptr;
    p.answer_len = 0;
  }
  // Its requests still in the runtime find a new generation and are discarded.
  ++c.generation;
  c.fd = -1;
  c.open = false;
  c.in_len = 0;
  c.out.clear();
  c.out_sent = 0;
  c.corked_replies = 0;
  c.next_sequence = c.next_reply = 0;
  --open_count_;
  free_slots_.push_back(slot);
}

void TcpFrontEnd::flush_after_stop(int wait_ms) {
  drain_completions();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    std::vector<pollfd> waiting;
    for (uint32_t slot = 0; slot < connections_.size(); ++slot) {
      TcpConnection& c = connections_[slot];
      if (!c.open) continue;
      write_out(slot);
      if (c.open && c.backlog_bytes() > 0) waiting.push_back({c.fd, POLLOUT, 0});
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (waiting.empty() || left.count() <= 0) break;
    ::poll(waiting.data(), waiting.size(), static_cast<int>(left.count()));
  }
  for (uint32_t slot = 0; slot < connections_.size(); ++slot) close_connection(slot);
  runnable_.clear();
}

}  // namespace quanta
