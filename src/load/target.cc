#include "load/target.h"

#include <netdb.h>

#include <cstring>
#include <stdexcept>

namespace quanta {

Target parse_target(const std::string& text) {
  Target target;
  const std::size_t scheme_end = text.find("://");
  if (scheme_end == std::string::npos) {
    throw std::invalid_argument("'" + text + "' is not udp://HOST:PORT or tcp://HOST:PORT");
  }
  const std::string scheme = text.substr(0, scheme_end);
  if (scheme == "udp") {
    target.protocol = Target::Protocol::kUdp;
  } else if (scheme == "tcp") {
    target.protocol = Target::Protocol::kTcp;
  } else {
    throw std::invalid_argument("unknown scheme '" + scheme + "' in '" + text + "' (expected udp or tcp)");
  }
  std::string rest = text.substr(scheme_end + 3);
  const std::size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size()) {
    throw std::invalid_argument("'" + text + "' needs a host and a port (" + scheme + "://HOST:PORT)");
  }
  std::string host = rest.substr(0, colon);
  const std::string port_text = rest.substr(colon + 1);
  // [::1]:PORT for an IPv6 literal.
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  char* end = nullptr;
  const unsigned long port = std::strtoul(port_text.c_str(), &end, 10);
  if (*end != '\0' || port_text[0] == '-' || port == 0 || port > 65535) {
    throw std::invalid_argument("port '" + port_text + "' in '" + text + "' is not a number from 1 to 65535");
  }
  target.host = host;
  target.port = static_cast<unsigned>(port);

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = target.protocol == Target::Protocol::kUdp ? SOCK_DGRAM : SOCK_STREAM;
  addrinfo* found = nullptr;
  const int error = getaddrinfo(host.c_str(), port_text.c_str(), &hints, &found);
  if (error != 0 || found == nullptr) {
    throw std::invalid_argument("cannot resolve host '" + host + "' in '" + text + "': " + gai_strerror(error));
  }
  std::memcpy(&target.address, found->ai_addr, found->ai_addrlen);
  target.address_len = found->ai_addrlen;
  freeaddrinfo(found);
  return target;
}

}  // namespace quanta
