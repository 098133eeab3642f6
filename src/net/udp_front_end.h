// The UDP front end of `quanta serve`: one socket, one request per datagram in the
// protocol its WireFormat speaks (the default one of quanta/wire.h, or the app's own), as a
// Source the dispatcher polls and the Sink of the requests it makes. With an app protocol
// that uses memcached's UDP framing, every datagram starts with memcached's 8-byte frame
// header: the request's is kept with the request and starts every datagram of its reply,
// which is cut into datagrams of at most 1400 bytes as memcached does.
//
// poll() runs on the dispatcher's thread and never blocks: its DatagramReceiver
// (recvmmsg or io_uring) takes up to a batch of datagrams that are already queued, each
// is checked, copied into a record of this front end's pool and handed to the dispatcher.
// A datagram that is not a good request is answered at once as the protocol says
// (default protocol: BAD_REQUEST; an empty datagram is dropped: there is nothing to
// answer) and counted by its reason; when every record is in use the request gets the
// protocol's overload answer. So the pool is the only per-request memory and bounds what
// is in flight.
//
// Who sends a reply is a choice (`quanta serve --udp-replies`), so that both can be measured
// (docs/network.md):
// - kWorker (the default): the worker that finishes a request sends its reply itself
//   (complete()): sendmsg on one UDP socket from several threads is safe, a datagram goes
//   out whole, nothing is handed over, and the dispatcher's core is kept for receiving and
//   dispatching.
// - kDispatcher: the worker writes the reply's head and pushes the record onto a
//   multi-producer queue (sized to the pool: never full), and poll() first sends what is
//   queued, one sendmmsg per batch (udp_reply_batch.h). One thread per socket and fewer
//   system calls, paid for with the dispatcher's time. What is still queued when the
//   runtime stops goes out in flush_after_stop().
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "net/datagram_receiver.h"
#include "net/listen_address.h"
#include "net/net_counters.h"
#include "net/udp_reply_batch.h"
#include "net/wire_format.h"
#include "runtime/doorbell.h"
#include "runtime/mpmc_queue.h"
#include "runtime/request_pool.h"
#include "runtime/source.h"

namespace quanta {

struct FrontEndLimits {
  uint32_t max_in_flight = 4096;      // request records: requests between arrival and reply
  uint32_t max_payload_bytes = 1024;  // larger requests are answered BAD_REQUEST
  uint32_t max_response_bytes = 1024;
  uint32_t class_count = 1;           // class indexes the app serves
};

// Which thread sends a UDP front end's replies (see above).
enum class UdpReplySender { kWorker, kDispatcher };
// How poll() takes datagrams from the socket (datagram_receiver.h).
enum class UdpReceiveMethod { kRecvmmsg, kIoUring };

class UdpFrontEnd final : public Source, public Sink {
 public:
  // Binds the socket (std::runtime_error naming the address if it cannot).
  // `format` must outlive the front end; `datagram` is a QUANTA_DATAGRAM_* value.
  UdpFrontEnd(const ListenAddress& address, const FrontEndLimits& limits, const WireFormat& format, uint32_t datagram,
              NetCounters& counters, UdpReplySender sender = UdpReplySender::kWorker,
              UdpReceiveMethod receive = UdpReceiveMethod::kRecvmmsg);
  ~UdpFrontEnd() override;
  UdpFrontEnd(const UdpFrontEnd&) = delete;
  UdpFrontEnd& operator=(const UdpFrontEnd&) = delete;

  // The address as bound (with the kernel's port when 0 was asked for).
  const sockaddr_storage& address() const { return bound_; }

  // Source (the dispatcher's thread).
  uint32_t poll(uint64_t now_tsc, Request** out, uint32_t max) override;
  bool exhausted() const override { return closed_.load(std::memory_order_acquire); }
  void close() override { closed_.store(true, std::memory_order_release); }
  bool prepare_idle_wait(IdleWait& wait) override;
  void end_idle_wait() override { finished_bell_.disarm(); }
  // Sink: complete() on the finishing worker, reject() on the dispatcher.
  void complete(Request& request) override;
  void reject(Request& request, RejectReason why) override;

  // After the runtime has stopped (no worker touches this front end any more): with
  // dispatcher replies, sends the replies the dispatcher had not sent yet. Nothing to do
  // with worker replies.
  void flush_after_stop();

 private:
  static constexpr uint32_t kBatch = 32;  // datagrams per recvmmsg

  // Adds the drops the kernel reports in a received message's control data.
  void note_kernel_drops();
  // Turns one received datagram into a request, or answers it. Returns the request or nullptr.
  Request* admit(const ReceivedDatagram& datagram);
  // Sends `head` then `body` to `to` as one reply: one datagram, or with memcached framing
  // as many as it takes, each after a frame header for request `frame_id`. False (and
  // counted) when the kernel would not take it.
  bool send_reply(const sockaddr_storage& to, socklen_t to_len, uint16_t frame_id, const unsigned char* head,
                  uint32_t head_len, const void* body, uint32_t body_len);
  // Dispatcher replies: sends every finished request queued by the workers, in batches.
  void send_finished();
  // A handler's reply, counted in replies_ok before it can leave (send_errors if refused).
  void send_counted_reply(const sockaddr_storage& to, socklen_t to_len, uint16_t frame_id, const unsigned char* head,
                          uint32_t head_len, const void* body, uint32_t body_len);
  // Sends the batch, counts its replies as sent or refused and releases their records.
  void send_batch();

  int fd_ = -1;
  sockaddr_storage bound_{};
  FrontEndLimits limits_;
  const WireFormat& format_;
  bool memcached_framing_;
  NetCounters& counters_;
  uint64_t next_id_ = 0;  // the records' ids, in arrival order (the dispatcher's thread)
  RequestPool pool_;
  // Each record's client, by pool_index: written on the dispatcher before the request is
  // handed over, read by the worker that finishes it (the hand-over orders the two).
  std::vector<sockaddr_storage> client_;
  std::vector<socklen_t> client_len_;
  std::vector<uint16_t> frame_id_;  // memcached framing: the request's frame id
  // Dispatcher replies: each record's reply head, written by the worker that finished it
  // (the queue's hand-over orders it before the dispatcher reads it), the queue of
  // finished records, and the batch being gathered.
  UdpReplySender sender_;
  std::vector<unsigned char> heads_;  // WireFormat::kMaxPrefixBytes per record
  std::vector<uint8_t> head_len_;
  MpmcQueue<Request*> finished_;      // workers -> dispatcher
  Doorbell finished_bell_;            // --idle block: a queued reply wakes the dispatcher
  UdpReplyBatch batch_;
  // Receiving: the datagrams of one poll, each held in a buffer of the largest request
  // (and a frame header) plus one byte, so that a larger one shows as too large rather
  // than as cut to size.
  std::unique_ptr<DatagramReceiver> receiver_;
  std::vector<ReceivedDatagram> received_;
  uint32_t kernel_drops_seen_ = 0;  // the kernel's running drop count, as last counted
  uint64_t receive_errors_seen_ = 0;
  std::atomic<bool> closed_{false};
};

}  // namespace quanta
