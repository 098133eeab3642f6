// quanta serve's --listen parser: what it accepts, and that every mistake is an
// std::invalid_argument that quotes the text.
#include "net/listen_address.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "net/net_counters.h"

namespace quanta {
namespace {

TEST(ListenAddress, ParsesUdpAndTcpOnIpv4AndIpv6) {
  const ListenAddress udp = parse_listen_address("udp://127.0.0.1:9000");
  EXPECT_EQ(udp.transport, ListenAddress::Transport::kUdp);
  EXPECT_EQ(listen_address_text(udp.transport, udp.address), "udp://127.0.0.1:9000");
  const ListenAddress tcp = parse_listen_address("tcp://0.0.0.0:0");
  EXPECT_EQ(tcp.transport, ListenAddress::Transport::kTcp);
  EXPECT_EQ(listen_address_text(tcp.transport, tcp.address), "tcp://0.0.0.0:0");
  const ListenAddress v6 = parse_listen_address("tcp://[::1]:65535");
  EXPECT_EQ(v6.address.ss_family, AF_INET6);
  EXPECT_EQ(listen_address_text(v6.transport, v6.address), "tcp://[::1]:65535");
}

TEST(ListenAddress, RejectsWhatItCannotBindExactly) {
  for (const std::string bad : {"", "127.0.0.1:80", "http://127.0.0.1:80", "udp://127.0.0.1", "udp://127.0.0.1:",
                                "udp://127.0.0.1:65536", "udp://127.0.0.1:-1", "udp://127.0.0.1:8x",
                                "udp://localhost:80", "udp://[::1:80", "udp://[::1]80", "udp://[nope]:80",
                                "tcp://1.2.3:80", "tcp://:80"}) {
    try {
      parse_listen_address(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(NetCounters, GroupsCountersByTransportInJson) {
  NetCounters counters;
  counters.add(NetCounter::kUdpDatagrams, 3);
  counters.add(NetCounter::kTcpRefusedOverLimit);
  const nlohmann::json j = counters.to_json();
  EXPECT_EQ(j["udp"]["datagrams"], 3u);
  EXPECT_EQ(j["tcp"]["refused_over_limit"], 1u);
  EXPECT_EQ(j["tcp"]["requests"], 0u);
  // Every counter has a name of its own.
  std::size_t names = 0;
  for (const auto& [transport, values] : j.items()) names += values.size();
  EXPECT_EQ(names, static_cast<std::size_t>(NetCounter::kCount));
}

}  // namespace
}  // namespace quanta
