// The two kinds of channel behind open_channel (channel.h).
#pragma once

#include <memory>

#include "load/channel.h"

namespace quanta {

std::unique_ptr<Channel> open_udp_channel(const Target& target);
std::unique_ptr<Channel> open_tcp_channel(const Target& target, unsigned connections, unsigned connect_timeout_ms);

}  // namespace quanta
