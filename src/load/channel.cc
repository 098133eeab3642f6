#include "load/channel.h"

#include <poll.h>
#include <time.h>

#include <vector>

#include "load/channels.h"

namespace quanta {

void wait_for_any_readable(const int* fds, std::size_t count, uint64_t timeout_ns) {
  std::vector<pollfd> polled;
  polled.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (fds[i] >= 0) polled.push_back({fds[i], POLLIN, 0});
  }
  const timespec timeout{static_cast<time_t>(timeout_ns / 1'000'000'000), static_cast<long>(timeout_ns % 1'000'000'000)};
  ::ppoll(polled.data(), polled.size(), &timeout, nullptr);
}

std::unique_ptr<Channel> open_channel(const Target& target, const ReplyFraming& framing, unsigned connections,
                                      unsigned connect_timeout_ms) {
  if (target.protocol == Target::Protocol::kUdp) return open_udp_channel(target, framing);
  return open_tcp_channel(target, framing, connections, connect_timeout_ms);
}

}  // namespace quanta
