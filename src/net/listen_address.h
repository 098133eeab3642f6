// Where `quanta serve` listens: "udp://HOST:PORT" or "tcp://HOST:PORT", parsed strictly,
// and the socket bound to it. HOST is a numeric IPv4 address ("127.0.0.1") or an IPv6 one
// in brackets ("[::1]"); names are not resolved, so what is bound is what was written.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <string>

namespace quanta {

struct ListenAddress {
  enum class Transport { kUdp, kTcp };
  Transport transport = Transport::kUdp;
  sockaddr_storage address{};  // host and port; port 0 asks the kernel for a free one
  socklen_t address_len = 0;
};

// Throws std::invalid_argument saying what is wrong with `text`.
ListenAddress parse_listen_address(const std::string& text);

// "udp://127.0.0.1:40123": how a bound address is printed (the port as bound).
std::string listen_address_text(ListenAddress::Transport transport, const sockaddr_storage& address);

// A non-blocking socket bound to `address` (listening, for TCP, with `backlog`), close-on-exec.
// Throws std::runtime_error naming the address and the system's reason.
int bind_listen_socket(const ListenAddress& address, int backlog);

// The address a bound socket ended up with (its port, when 0 was asked for).
sockaddr_storage bound_address(int fd);

}  // namespace quanta
