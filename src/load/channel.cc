#include "load/channel.h"

#include "load/channels.h"

namespace quanta {

std::unique_ptr<Channel> open_channel(const Target& target, unsigned connections, unsigned connect_timeout_ms) {
  if (target.protocol == Target::Protocol::kUdp) return open_udp_channel(target);
  return open_tcp_channel(target, connections, connect_timeout_ms);
}

}  // namespace quanta
