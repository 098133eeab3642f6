// Where `quanta load` sends: udp://HOST:PORT or tcp://HOST:PORT, resolved once before the
// run (IPv4 or IPv6, whatever the resolver gives first).
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <string>

namespace quanta {

struct Target {
  enum class Protocol { kUdp, kTcp };
  Protocol protocol = Protocol::kUdp;
  std::string host;
  unsigned port = 0;
  sockaddr_storage address{};
  socklen_t address_len = 0;

  const char* protocol_name() const { return protocol == Protocol::kUdp ? "udp" : "tcp"; }
};

// Throws std::invalid_argument saying what is wrong with `text` (no scheme, an unknown
// scheme, no port, a port outside 1..65535, a host the resolver does not know).
Target parse_target(const std::string& text);

}  // namespace quanta
