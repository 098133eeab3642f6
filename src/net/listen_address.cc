#include "net/listen_address.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace quanta {
namespace {

// A decimal port, 0..65535, nothing else.
uint16_t parse_port(const std::string& text, const std::string& whole) {
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos) {
    throw std::invalid_argument("'" + whole + "': the port must be a number from 0 to 65535");
  }
  const unsigned long port = std::stoul(text);
  if (port > 65535) throw std::invalid_argument("'" + whole + "': the port must be a number from 0 to 65535");
  return static_cast<uint16_t>(port);
}

}  // namespace

ListenAddress parse_listen_address(const std::string& text) {
  ListenAddress out;
  std::string rest;
  if (text.rfind("udp://", 0) == 0) {
    out.transport = ListenAddress::Transport::kUdp;
    rest = text.substr(6);
  } else if (text.rfind("tcp://", 0) == 0) {
    out.transport = ListenAddress::Transport::kTcp;
    rest = text.substr(6);
  } else {
    throw std::invalid_argument("'" + text + "': expected udp://HOST:PORT or tcp://HOST:PORT");
  }
  std::string host;
  std::string port;
  if (!rest.empty() && rest.front() == '[') {
    const std::size_t close = rest.find(']');
    if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':') {
      throw std::invalid_argument("'" + text + "': an IPv6 host is written [ADDRESS]:PORT");
    }
    host = rest.substr(1, close - 1);
    port = rest.substr(close + 2);
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    if (inet_pton(AF_INET6, host.c_str(), &a.sin6_addr) != 1) {
      throw std::invalid_argument("'" + text + "': '" + host + "' is not an IPv6 address");
    }
    a.sin6_port = htons(parse_port(port, text));
    std::memcpy(&out.address, &a, sizeof a);
    out.address_len = sizeof a;
    return out;
  }
  const std::size_t colon = rest.rfind(':');
  if (colon == std::string::npos) throw std::invalid_argument("'" + text + "': the port is missing (HOST:PORT)");
  host = rest.substr(0, colon);
  port = rest.substr(colon + 1);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) {
    throw std::invalid_argument("'" + text + "': '" + host + "' is not a numeric IPv4 address (names are not resolved)");
  }
  a.sin_port = htons(parse_port(port, text));
  std::memcpy(&out.address, &a, sizeof a);
  out.address_len = sizeof a;
  return out;
}

std::string listen_address_text(ListenAddress::Transport transport, const sockaddr_storage& address) {
  const std::string scheme = transport == ListenAddress::Transport::kUdp ? "udp://" : "tcp://";
  char host[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(address);
    inet_ntop(AF_INET6, &a.sin6_addr, host, sizeof host);
    return scheme + "[" + host + "]:" + std::to_string(ntohs(a.sin6_port));
  }
  const auto& a = reinterpret_cast<const sockaddr_in&>(address);
  inet_ntop(AF_INET, &a.sin_addr, host, sizeof host);
  return scheme + host + ":" + std::to_string(ntohs(a.sin_port));
}

int bind_listen_socket(const ListenAddress& address, int backlog) {
  const bool udp = address.transport == ListenAddress::Transport::kUdp;
  const std::string where = listen_address_text(address.transport, address.address);
  const int fd = socket(address.address.ss_family, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("cannot open a socket for " + where + ": " + std::strerror(errno));
  if (!udp) {
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  }
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address.address), address.address_len) != 0 ||
      (!udp && listen(fd, backlog) != 0)) {
    const int err = errno;
    close(fd);
    throw std::runtime_error("cannot listen on " + where + ": " + std::strerror(err));
  }
  return fd;
}

sockaddr_storage bound_address(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  return a;
}

}  // namespace quanta
