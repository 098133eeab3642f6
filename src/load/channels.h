// The two kinds of channel behind open_channel (channel.h).
#pragma once

#include <memory>

#include "load/channel.h"

namespace quanta {

std::unique_ptr<Channel> open_udp_channel(const Target& target, const ReplyFraming& framing);
std::unique_ptr<Channel> open_tcp_channel(const Target& target, const ReplyFraming& framing, unsigned connections,
                                          unsigned connect_timeout_ms);

}  // namespace quanta
