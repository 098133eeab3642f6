// What the network front ends saw: every datagram, connection, request and reply, and every
// drop or error by its reason. One counter per event, kept as relaxed atomics because the
// dispatcher and the workers (which send UDP replies) both add to them and a snapshot may
// be taken on another thread while the server runs (SIGUSR1). docs/network.md says what each
// one means; the JSON groups them by transport ("udp.datagrams" -> {"udp": {"datagrams"}}).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace quanta {

enum class NetCounter : uint32_t {
  // UDP
  kUdpDatagrams,            // datagrams received, whatever was in them
  kUdpRequests,             // well-formed requests handed to the runtime
  kUdpRepliesOk,            // replies with the handler's response the kernel took
  kUdpOverloaded,           // answered OVERLOADED: no request record free, or the runtime dropped it
  kUdpEmpty,                // empty datagrams: dropped without a reply (nothing to answer)
  kUdpTruncated,            // shorter than the 16-byte header: BAD_REQUEST
  kUdpBadMagic,             // not this protocol: BAD_REQUEST
  kUdpBadClass,             // class index not one the app serves: BAD_REQUEST
  kUdpTooLarge,             // payload over --max-payload-bytes: BAD_REQUEST
  kUdpLengthMismatch,       // not exactly one request (default protocol: payload_len disagrees with the
                            // size; BAD_REQUEST)
  kUdpProtocolRefused,      // the app's protocol answered it itself (a bad command): not run
  kUdpBadDatagramHeader,    // memcached framing: no 8-byte frame header, or a request over several
                            // datagrams: dropped
  kUdpSendErrors,           // a reply the kernel would not take (full buffer, unreachable, over 64 KiB): lost
  kUdpReplyBatches,         // --udp-replies dispatcher: batches of replies sent (one sendmmsg each, more
                            // when the kernel refuses a datagram mid-batch); replies_ok / this = batch size
  kUdpReceiveErrors,        // recvmmsg failed with something other than "nothing to read"
  kUdpDroppedByKernel,      // datagrams the kernel dropped on a full receive buffer (SO_RXQ_OVFL), as
                            // far as later datagrams report it
  // TCP
  kTcpConnections,          // connections accepted and served
  kTcpRefusedOverLimit,     // accepted and closed at once: --max-connections were open
  kTcpClosedByPeer,         // the client closed between requests
  kTcpPeerStoppedMidRequest,  // the client closed with part of a request unread
  kTcpRequests,             // well-formed requests handed to the runtime
  kTcpRepliesOk,
  kTcpOverloaded,           // answered OVERLOADED (no record free, or the runtime dropped it)
  kTcpBadMagic,             // garbage on the stream: BAD_REQUEST, then closed
  kTcpBadClass,             // class out of range: BAD_REQUEST, then closed
  kTcpTooLarge,             // payload over --max-payload-bytes: BAD_REQUEST, then closed
  kTcpProtocolRefused,      // the app's protocol answered it itself (a bad command): not run
  kTcpClosedByProtocol,     // the app's protocol ended the connection (a quit, unframable bytes)
  kTcpPaused,               // times a connection's reading stopped at its in-flight limit
  kTcpClosedSlowReader,     // replies backed up past the connection's backlog: closed
  kTcpClosedError,          // a read or write failed (reset by the peer): closed
  kTcpRepliesDiscarded,     // finished requests whose connection had closed: no one to tell
  kTcpEpollWaits,           // epoll_wait calls that looked for ready sockets: one per poll with
                            // --tcp-poll epoll (but for polls that took buffered requests and
                            // skipped it), one per readiness signalled with io_uring
  kTcpReads,                // recv calls on connections (a read may bring several requests)
  kTcpSends,                // send calls on connections (a send may carry several replies)
  kTcpPollRingErrors,       // --tcp-poll io_uring: the poll on the epoll set failed to arm or completed
                            // with an error (epoll is then asked at every poll until it is armed)
  kCount
};

// "udp.datagrams", ...
const char* net_counter_name(NetCounter counter);

enum class RefusalReason;
// The counter of input refused for `why` over UDP or TCP.
NetCounter refusal_counter(bool udp, RefusalReason why);

class NetCounters {
 public:
  void add(NetCounter c, uint64_t n = 1) { values_[static_cast<uint32_t>(c)].fetch_add(n, std::memory_order_relaxed); }
  // Undoes an add() made ahead of the event it counted (a reply counted before its send,
  // so that a client holding the reply never reads a snapshot without it) when the event
  // did not happen after all.
  void take_back(NetCounter c, uint64_t n = 1) { values_[static_cast<uint32_t>(c)].fetch_sub(n, std::memory_order_relaxed); }
  uint64_t get(NetCounter c) const { return values_[static_cast<uint32_t>(c)].load(std::memory_order_relaxed); }
  // {"udp": {"datagrams": N, ...}, "tcp": {...}}
  nlohmann::json to_json() const;

 private:
  std::array<std::atomic<uint64_t>, static_cast<uint32_t>(NetCounter::kCount)> values_{};
};

}  // namespace quanta
