#include "udp_receive_run.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <vector>

#include "core/tsc.h"
#include "quanta/wire.h"
#include "runtime/cpu_layout.h"
#include "udp_receivers.h"

namespace quanta::bench {
namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void fail(const char* what) { throw std::runtime_error(std::string(what) + ": " + std::strerror(errno)); }

// A non-blocking UDP socket on 127.0.0.1 with a kernel-chosen port, set up as the front
// end's: the kernel reports its drop count with each datagram.
int receive_socket(sockaddr_in& bound) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) fail("bind 127.0.0.1:0");
  socklen_t len = sizeof bound;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len) != 0) fail("getsockname");
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on);
  return fd;
}

// Receives on the calling thread (pinned) and returns the method's receiver; the io_uring
// ones must be made on the thread that polls them (task work goes to the submitter).
std::unique_ptr<UdpReceiver> receiver_for(const RunSettings& s, int fd) {
  std::unique_ptr<UdpReceiver> r = make_receiver(s.method, fd);
  if (r == nullptr) throw std::invalid_argument("unknown receive method '" + s.method + "'");
  return r;
}

// Runs body on s.receiver_cpu and rethrows what it threw.
template <typename Body>
void on_receiver_cpu(const RunSettings& s, Body body) {
  std::exception_ptr error;
  PinnedThread t(s.receiver_cpu, [&] {
    try {
      body();
    } catch (...) {
      error = std::current_exception();
    }
  });
  t.join();
  if (error) std::rethrow_exception(error);
}

// Sends wire-request-shaped datagrams to `to` until stop: in batches of sendmmsg when
// flat out (so that the sender outruns every receiver), else one at a time on a schedule.
void send_until(const RunSettings& s, const sockaddr_in& to, const std::atomic<bool>& stop, uint64_t& sent) {
  Fd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) fail("socket");
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) fail("connect");
  std::vector<unsigned char> datagram(s.datagram_bytes, 0);
  quanta_wire_request header{};
  header.payload_len = s.datagram_bytes - QUANTA_WIRE_REQUEST_HEADER;
  quanta_wire_encode_request(datagram.data(), &header);
  iovec iov{datagram.data(), datagram.size()};
  mmsghdr batch[kReceiveBatch]{};
  for (mmsghdr& m : batch) {
    m.msg_hdr.msg_iov = &iov;
    m.msg_hdr.msg_iovlen = 1;
  }
  const uint64_t interval = s.send_rate_dps > 0 ? ns_to_cycles(1e9 / s.send_rate_dps) : 0;
  uint64_t next = read_tsc();
  while (!stop.load(std::memory_order_relaxed)) {
    if (interval == 0) {
      const int n = ::sendmmsg(fd.get(), batch, kReceiveBatch, MSG_DONTWAIT);
      if (n > 0) sent += static_cast<uint64_t>(n);
      continue;
    }
    while (read_tsc() < next) cpu_relax();
    next += interval;
    if (::send(fd.get(), datagram.data(), datagram.size(), MSG_DONTWAIT) > 0) ++sent;
  }
}

// Data polls whose cost is kept for the median, reserved before the window opens.
constexpr std::size_t kMaxPollSamples = 1 << 22;

}  // namespace

double measure_empty_poll_ns(const RunSettings& s) {
  std::vector<uint64_t> samples;
  on_receiver_cpu(s, [&] {
    sockaddr_in bound{};
    Fd fd(receive_socket(bound));
    std::unique_ptr<UdpReceiver> r = receiver_for(s, fd.get());
    for (uint32_t i = 0; i < 1000; ++i) r->poll();  // warm caches and branch predictors
    samples.reserve(s.empty_poll_samples);
    for (uint32_t k = 0; k < s.empty_poll_samples; ++k) {
      const uint64_t t0 = read_tsc();
      for (uint32_t i = 0; i < kPollsPerSample; ++i) r->poll();
      samples.push_back(read_tsc() - t0);
    }
  });
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return cycles_to_ns(samples[samples.size() / 2]) / kPollsPerSample;
}

LoadRun measure_load(const RunSettings& s) {
  LoadRun run;
  on_receiver_cpu(s, [&] {
    sockaddr_in bound{};
    Fd fd(receive_socket(bound));
    std::unique_ptr<UdpReceiver> r = receiver_for(s, fd.get());
    std::atomic<bool> stop{false};
    uint64_t sent = 0;
    std::exception_ptr send_error;
    PinnedThread sender(s.sender_cpu, [&] {
      try {
        send_until(s, bound, stop, sent);
      } catch (...) {
        send_error = std::current_exception();
      }
    });
    // Warm-up: the sender gets going before the window opens.
    const uint64_t warm_end = read_tsc() + ns_to_cycles(20e6);
    while (read_tsc() < warm_end) run.received_total += r->poll();

    std::vector<double> per_datagram;
    per_datagram.reserve(kMaxPollSamples);
    std::vector<uint64_t> empty_iterations;
    empty_iterations.reserve(kMaxPollSamples);
    const uint64_t start = read_tsc();
    const uint64_t end = start + ns_to_cycles(s.seconds * 1e9);
    uint64_t now = start;
    uint64_t previous = start;
    while (now < end) {
      const uint64_t t0 = read_tsc();
      const uint32_t n = r->poll();
      const uint64_t t1 = read_tsc();
      if (n > 0) {
        run.data_cycles += t1 - t0;
        run.received += n;
        ++run.data_polls;
        if (per_datagram.size() < kMaxPollSamples) per_datagram.push_back(static_cast<double>(t1 - t0) / n);
      } else {
        run.empty_cycles += t1 - t0;
        ++run.empty_polls;
        if (empty_iterations.size() < kMaxPollSamples) empty_iterations.push_back(t1 - previous);
      }
      previous = now = t1;
    }
    run.loop_cycles = now - start;
    run.seconds = cycles_to_ns(run.loop_cycles) / 1e9;
    if (!per_datagram.empty()) {
      std::nth_element(per_datagram.begin(), per_datagram.begin() + per_datagram.size() / 2, per_datagram.end());
      run.median_poll_cycles_per_datagram = per_datagram[per_datagram.size() / 2];
    }
    if (!empty_iterations.empty()) {
      std::nth_element(empty_iterations.begin(), empty_iterations.begin() + empty_iterations.size() / 2,
                       empty_iterations.end());
      run.median_empty_iteration_cycles = empty_iterations[empty_iterations.size() / 2];
    }
    stop.store(true, std::memory_order_relaxed);
    sender.join();
    if (send_error) std::rethrow_exception(send_error);
    // Drain until nothing has come for 5 ms: then what was sent and not taken was dropped.
    run.received_total += run.received;
    const uint64_t quiet = ns_to_cycles(5e6);
    uint64_t last = read_tsc();
    while (read_tsc() - last < quiet) {
      const uint32_t n = r->poll();
      if (n > 0) {
        run.received_total += n;
        last = read_tsc();
      }
    }
    run.sent = sent;
    run.kernel_drops = r->kernel_drops();
    run.rearms = r->rearms();
  });
  return run;
}

}  // namespace quanta::bench
