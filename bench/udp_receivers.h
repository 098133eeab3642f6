// The ways a dispatcher's thread can take UDP datagrams off one socket without blocking,
// behind one interface so quanta-bench-udp-receive can time them alike
// (bench/udp_receive_bench.cc, docs/network.md "Receiving: recvmmsg, epoll or io_uring").
//
// Every receiver reads each datagram's first byte (as a front end reading the header
// would) and returns how many it took; none of them blocks. Those that read control data
// keep the kernel's running count of datagrams it dropped on the socket (SO_RXQ_OVFL),
// as src/net/udp_front_end.cc does.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace quanta::bench {

class UdpReceiver {
 public:
  virtual ~UdpReceiver() = default;
  // Takes what is queued now (up to the method's batch) and returns how many datagrams.
  virtual uint32_t poll() = 0;
  // The kernel's count of datagrams dropped on the socket, when the method reads it.
  virtual std::optional<uint32_t> kernel_drops() const { return std::nullopt; }
  // Times the method had to ask the kernel again for work it had been given once (an
  // io_uring multishot receive that ended); 0 for the others.
  virtual uint64_t rearms() const { return 0; }
  // Sum of every first byte read: returned so the compiler cannot drop the reads.
  uint64_t checksum() const { return checksum_; }

 protected:
  uint64_t checksum_ = 0;
};

// The methods by name, in the order the bench runs and reports them.
const std::vector<std::string>& receive_method_names();
// Datagrams per call for the batched methods (the front end's recvmmsg batch).
constexpr uint32_t kReceiveBatch = 32;
// Largest datagram a receiver's buffers take.
constexpr uint32_t kMaxDatagramBytes = 256;

// A receiver of `method` on the bound, non-blocking socket `fd` (not owned), or nullptr
// for an unknown name. Throws std::runtime_error when the method cannot be set up here
// (e.g. io_uring disabled by the kernel).
std::unique_ptr<UdpReceiver> make_receiver(const std::string& method, int fd);

}  // namespace quanta::bench
