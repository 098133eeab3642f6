// How the UDP front end takes the datagrams already queued on its socket, without ever
// blocking: a batch of them per call, each with its sender and whether it was cut to the
// buffer. Two ways, chosen by `quanta serve --udp-receive`:
//   recvmmsg  one system call per poll, whether or not anything came;
//   io_uring  one multishot receive armed once; a poll reads the completion ring in shared
//             memory and enters the kernel only when the ring says work waits there
//             (cooperative task running), so a poll that finds nothing costs a few loads.
// `quanta-bench-udp-receive` measures both (docs/network.md).
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <memory>

namespace quanta {

struct ReceivedDatagram {
  const unsigned char* bytes = nullptr;  // valid until the next receive()
  uint32_t len = 0;                      // bytes held (at most the buffer)
  bool truncated = false;                // the datagram was longer than the buffer
  const sockaddr_storage* from = nullptr;
  socklen_t from_len = 0;
};

class DatagramReceiver {
 public:
  virtual ~DatagramReceiver() = default;
  // Fills `out` with up to `max` queued datagrams; returns how many. Counts a failed
  // receive in errors().
  virtual uint32_t receive(ReceivedDatagram* out, uint32_t max) = 0;
  // The kernel's running count of datagrams it dropped on this socket (SO_RXQ_OVFL), as
  // the latest datagram carried it; it wraps at 2^32.
  uint32_t kernel_drops_total() const { return kernel_drops_total_; }
  uint64_t errors() const { return errors_; }
  // io_uring: times the multishot receive ended and was asked for again.
  uint64_t rearms() const { return rearms_; }
  // --idle block: the descriptor that turns readable when a receive would find something,
  // and whether one would find something now without more from the network.
  virtual int wait_fd() const = 0;
  virtual bool holds_arrivals() const = 0;

 protected:
  uint32_t kernel_drops_total_ = 0;
  uint64_t errors_ = 0;
  uint64_t rearms_ = 0;
};

// The largest datagram held is `buffer_bytes`; longer ones come truncated. Both turn on
// SO_RXQ_OVFL. make_io_uring_receiver throws std::runtime_error naming the failed call when
// io_uring cannot be set up here (disabled by kernel.io_uring_disabled, say).
// `cooperative` false sets the ring up the default way, where each arrival interrupts the
// receiving thread to run the kernel's receive: worse here (quanta-bench-udp-receive
// measures both), kept for that comparison.
std::unique_ptr<DatagramReceiver> make_recvmmsg_receiver(int fd, uint32_t buffer_bytes, uint32_t batch);
std::unique_ptr<DatagramReceiver> make_io_uring_receiver(int fd, uint32_t buffer_bytes, bool cooperative = true);

}  // namespace quanta
