// How UDP replies are cut into datagrams (udp_reply_datagrams.h) and sent in batches
// (udp_reply_batch.h): the pieces of a memcached-framed reply put back together give the
// reply, each carries a frame header numbering it, and one batch delivers every datagram
// over loopback. Counts and bytes only.
#include "net/udp_reply_batch.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "net/udp_reply_datagrams.h"

namespace quanta {
namespace {

std::string gather(const iovec* parts, uint32_t n) {
  std::string out;
  for (uint32_t i = 0; i < n; ++i) out.append(static_cast<const char*>(parts[i].iov_base), parts[i].iov_len);
  return out;
}

TEST(UdpReplyDatagrams, PlainRepliesAreOneDatagramWithoutEmptyParts) {
  EXPECT_EQ(reply_datagram_count(false, 1 << 20), 1u);
  const unsigned char head[] = {'h', 'd'};
  const std::string body = "body";
  iovec parts[kReplyDatagramMaxParts];
  unsigned char frame[MemcachedFrame::kBytes];
  EXPECT_EQ(gather(parts, reply_datagram_parts(false, 0, 0, 1, head, 2, body.data(), 4, frame, parts)), "hdbody");
  EXPECT_EQ(reply_datagram_parts(false, 0, 0, 1, head, 0, body.data(), 4, frame, parts), 1u);
  EXPECT_EQ(reply_datagram_parts(false, 0, 0, 1, head, 2, nullptr, 0, frame, parts), 1u);
}

TEST(UdpReplyDatagrams, MemcachedRepliesAreCutInNumberedPiecesThatRebuildTheReply) {
  constexpr uint32_t kRoom = MemcachedFrame::kMaxDatagramBytes - MemcachedFrame::kBytes;
  EXPECT_EQ(reply_datagram_count(true, 0), 1u);
  EXPECT_EQ(reply_datagram_count(true, kRoom), 1u);
  EXPECT_EQ(reply_datagram_count(true, kRoom + 1), 2u);
  EXPECT_EQ(reply_datagram_count(true, uint64_t{kRoom} * 70000), 0u);  // more than a u16 numbers
  const std::string head = "HEAD:";
  std::string body(3 * kRoom + 17, 'x');
  for (std::size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>('a' + i % 26);
  const uint32_t count = reply_datagram_count(true, head.size() + body.size());
  ASSERT_EQ(count, 4u);
  std::string rebuilt;
  for (uint32_t k = 0; k < count; ++k) {
    iovec parts[kReplyDatagramMaxParts];
    unsigned char frame[MemcachedFrame::kBytes];
    const uint32_t n = reply_datagram_parts(true, 77, k, count, reinterpret_cast<const unsigned char*>(head.data()),
                                            static_cast<uint32_t>(head.size()), body.data(),
                                            static_cast<uint32_t>(body.size()), frame, parts);
    const std::string datagram = gather(parts, n);
    ASSERT_LE(datagram.size(), MemcachedFrame::kMaxDatagramBytes);
    MemcachedFrame decoded;
    ASSERT_TRUE(decoded.decode(reinterpret_cast<const unsigned char*>(datagram.data()), datagram.size()));
    EXPECT_EQ(decoded.request_id, 77);
    EXPECT_EQ(decoded.sequence, k);
    EXPECT_EQ(decoded.count, count);
    rebuilt += datagram.substr(MemcachedFrame::kBytes);
  }
  EXPECT_EQ(rebuilt, head + body);
}

// A bound loopback UDP socket and its address.
struct Loopback {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_storage address{};
  socklen_t len = sizeof(sockaddr_in);
  Loopback() {
    auto* in = reinterpret_cast<sockaddr_in*>(&address);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&address), len);
    getsockname(fd, reinterpret_cast<sockaddr*>(&address), &len);
  }
  ~Loopback() { close(fd); }
};

TEST(UdpReplyBatch, OneSendDeliversEveryDatagramOfEveryReply) {
  Loopback server, client;
  UdpReplyBatch batch(server.fd, true);
  Request first{}, second{};
  const std::string small = "END\r\n";
  const std::string large(2000, 'v');  // two datagrams
  EXPECT_EQ(batch.room(), UdpReplyBatch::kDatagrams);
  batch.add(first, client.address, client.len, 1, nullptr, 0, small.data(), static_cast<uint32_t>(small.size()), 1);
  batch.add(second, client.address, client.len, 2, nullptr, 0, large.data(), static_cast<uint32_t>(large.size()),
            reply_datagram_count(true, large.size()));
  EXPECT_EQ(batch.room(), UdpReplyBatch::kDatagrams - 3);
  const auto sent = batch.send();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(sent[0].request, &first);
  EXPECT_EQ(sent[1].request, &second);
  EXPECT_TRUE(sent[0].ok && sent[1].ok);
  std::size_t bytes = 0;
  for (int i = 0; i < 3; ++i) {
    char buffer[2048];
    const ssize_t n = recv(client.fd, buffer, sizeof buffer, 0);
    ASSERT_GT(n, static_cast<ssize_t>(MemcachedFrame::kBytes));
    bytes += static_cast<std::size_t>(n) - MemcachedFrame::kBytes;
  }
  EXPECT_EQ(bytes, small.size() + large.size());
}

TEST(UdpReplyBatch, ARefusedDatagramFailsOnlyItsReply) {
  Loopback server, client;
  UdpReplyBatch batch(server.fd, false);
  Request good{}, bad{};
  sockaddr_storage nowhere{};  // family AF_UNSPEC: the kernel refuses to send there
  const std::string body = "x";
  batch.add(bad, nowhere, sizeof(sockaddr_in), 0, nullptr, 0, body.data(), 1, 1);
  batch.add(good, client.address, client.len, 0, nullptr, 0, body.data(), 1, 1);
  const auto sent = batch.send();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_FALSE(sent[0].ok);
  EXPECT_TRUE(sent[1].ok);
  char buffer[16];
  EXPECT_EQ(recv(client.fd, buffer, sizeof buffer, 0), 1);
}

}  // namespace
}  // namespace quanta
