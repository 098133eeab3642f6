// How often the TCP front end reads a connection whose requests run one at a time (an
// in-order protocol, or an in-flight limit of 1): it frames what its buffer already holds
// before it reads the socket again, so requests that came while earlier ones ran are
// fetched by one recv when the buffer runs dry, not by one recv after every reply. Driven
// from this thread as the dispatcher would drive it, with a real client socket on
// loopback; `tcp.reads` counts the recv calls. And while such buffered requests keep
// coming, the front end asks epoll at most every 8th poll, yet a request on another
// connection is still taken within 8 polls. A reply finished on the polling thread is
// written at once, one from another thread at the next poll, and replies of requests
// pipelined behind each other go out several to a send (`tcp.sends` counts the send
// calls). Counts and ordering only.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "net/listen_address.h"
#include "net/net_counters.h"
#include "net/tcp_front_end.h"
#include "net/wire_format.h"
#include "quanta/wire.h"

namespace quanta {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kDeadline = std::chrono::seconds(10);

TcpLimits one_in_flight() {
  TcpLimits limits;
  limits.max_in_flight_per_connection = 1;
  return limits;
}

class TcpReads : public ::testing::Test {
 protected:
  TcpReads()
      : format_(64, 1),
        front_end_(parse_listen_address("tcp://127.0.0.1:0"), FrontEndLimits{}, one_in_flight(), format_, counters_,
                   TcpPollMethod::kEpoll) {
    client_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT_GE(client_, 0);
    const sockaddr_storage& address = front_end_.address();
    EXPECT_EQ(::connect(client_, reinterpret_cast<const sockaddr*>(&address), sizeof(sockaddr_in)), 0)
        << std::strerror(errno);
    const int on = 1;
    ::setsockopt(client_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    const timeval timeout{10, 0};  // a reply that never comes fails the read instead of hanging
    ::setsockopt(client_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  ~TcpReads() override { ::close(client_); }

  // Sends the requests with these ids in one send (one segment on loopback).
  void send_requests(std::vector<uint64_t> ids) {
    std::vector<unsigned char> bytes(ids.size() * QUANTA_WIRE_REQUEST_HEADER);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const quanta_wire_request r{0, 0, ids[i]};
      quanta_wire_encode_request(bytes.data() + i * QUANTA_WIRE_REQUEST_HEADER, &r);
    }
    ASSERT_EQ(::send(client_, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  }

  // Polls until the front end hands over one request (nullptr at the deadline).
  Request* take_one() {
    const auto deadline = Clock::now() + kDeadline;
    while (Clock::now() < deadline) {
      Request* batch[8];
      const uint32_t n = front_end_.poll(0, batch, 8);
      EXPECT_LE(n, 1u) << "an in-flight limit of 1 lets one request of the connection out at a time";
      if (n == 1) return batch[0];
    }
    return nullptr;
  }

  // A few polls that may take no request (the connection is at its limit): they harvest
  // what epoll reports meanwhile.
  void idle_polls() {
    for (int i = 0; i < 3; ++i) {
      Request* batch[8];
      EXPECT_EQ(front_end_.poll(0, batch, 8), 0u);
    }
  }

  void finish(Request* r) {
    r->response_len = 0;
    r->value = r->cookie;
    front_end_.complete(*r);
  }

  uint64_t read_reply_id() {
    unsigned char bytes[QUANTA_WIRE_REPLY_HEADER];
    std::size_t got = 0;
    while (got < sizeof bytes) {
      const ssize_t n = ::recv(client_, bytes + got, sizeof bytes - got, 0);
      if (n <= 0) return UINT64_MAX;
      got += static_cast<std::size_t>(n);
    }
    quanta_wire_reply reply{};
    if (quanta_wire_decode_reply(bytes, sizeof bytes, &reply) != 1 || reply.kind != QUANTA_WIRE_OK) return UINT64_MAX;
    return reply.request_id;
  }

  uint64_t reads() const { return counters_.get(NetCounter::kTcpReads); }
  uint64_t sends() const { return counters_.get(NetCounter::kTcpSends); }
  uint64_t epoll_waits() const { return counters_.get(NetCounter::kTcpEpollWaits); }

  int connect_other() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT_GE(fd, 0);
    const sockaddr_storage& address = front_end_.address();
    EXPECT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(sockaddr_in)), 0);
    return fd;
  }

  NetCounters counters_;
  DefaultWireFormat format_;
  TcpFrontEnd front_end_;
  int client_ = -1;
};

TEST_F(TcpReads, BufferedRequestsAreFramedBeforeTheSocketIsReadAgain) {
  send_requests({1, 2});
  Request* first = take_one();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->cookie, 1u);
  EXPECT_EQ(reads(), 1u) << "one read brought both requests";

  // Request 3 comes while 1 runs and 2 waits in the buffer: epoll reports it.
  send_requests({3});
  idle_polls();
  finish(first);
  Request* second = take_one();
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->cookie, 2u);
  EXPECT_EQ(reads(), 1u) << "request 2 was in the buffer: no read for it";

  // Request 4 comes while 2 runs; the buffer is empty now, so taking 3 reads 3 and 4 at once.
  send_requests({4});
  idle_polls();
  finish(second);
  Request* third = take_one();
  ASSERT_NE(third, nullptr);
  EXPECT_EQ(third->cookie, 3u);
  EXPECT_EQ(reads(), 2u);

  finish(third);
  Request* fourth = take_one();
  ASSERT_NE(fourth, nullptr);
  EXPECT_EQ(fourth->cookie, 4u);
  EXPECT_EQ(reads(), 2u) << "request 4 came with 3";
  finish(fourth);
  idle_polls();  // writes the last reply

  for (uint64_t id = 1; id <= 4; ++id) EXPECT_EQ(read_reply_id(), id) << "replies in the order of the requests";
  EXPECT_EQ(counters_.get(NetCounter::kTcpRequests), 4u);
  EXPECT_EQ(counters_.get(NetCounter::kTcpRepliesOk), 4u);
}

// A request finished on the thread that polls (the one-thread server), with nothing more
// waiting in its connection's buffer, has its reply written by complete() itself; one
// finished on another thread (a worker) waits in the queue, and its reply goes out at the
// next poll.
TEST_F(TcpReads, RepliesFromThePollingThreadGoOutAtOnceOthersAtTheNextPoll) {
  send_requests({1});
  Request* first = take_one();
  ASSERT_NE(first, nullptr);
  finish(first);
  EXPECT_EQ(read_reply_id(), 1u) << "written by complete(), with no poll in between";

  send_requests({2});
  Request* second = take_one();
  ASSERT_NE(second, nullptr);
  std::thread worker([&] { finish(second); });
  worker.join();
  unsigned char byte = 0;
  EXPECT_EQ(::recv(client_, &byte, 1, MSG_DONTWAIT), -1) << "nothing is written before the dispatcher polls";
  EXPECT_EQ(errno, EAGAIN);
  idle_polls();
  EXPECT_EQ(read_reply_id(), 2u);
  EXPECT_EQ(counters_.get(NetCounter::kTcpRepliesOk), 2u);
  EXPECT_EQ(sends(), 2u);
}

// Pipelined requests: while more wait in the buffer, each reply is held back and goes out
// with the ones after it, at most eight to a send, and when the buffer runs dry (here it
// holds three requests: a 64-byte payload limit): one send per read, or per eight replies,
// not one per reply. In order.
TEST_F(TcpReads, RepliesOfPipelinedRequestsGoOutSeveralToASend) {
  std::vector<uint64_t> ids;
  for (uint64_t id = 1; id <= 20; ++id) ids.push_back(id);
  send_requests(ids);
  for (uint64_t id = 1; id <= 20; ++id) {
    Request* r = take_one();
    ASSERT_NE(r, nullptr);
    ASSERT_EQ(r->cookie, id);
    finish(r);
  }
  for (uint64_t id = 1; id <= 20; ++id) EXPECT_EQ(read_reply_id(), id) << "replies in the order of the requests";
  EXPECT_EQ(counters_.get(NetCounter::kTcpRepliesOk), 20u);
  EXPECT_LE(sends(), reads() + 20 / 8);
  EXPECT_LT(sends(), 10u) << "one send per reply is 20";
}

// A held reply waits for no request that is not all there: the next poll hands out no
// request of its connection and writes it.
TEST_F(TcpReads, AHeldReplyGoesOutAtTheFirstPollThatHandsOutNoRequestOfItsConnection) {
  std::vector<unsigned char> bytes(2 * QUANTA_WIRE_REQUEST_HEADER);
  for (uint64_t id = 1; id <= 2; ++id) {
    const quanta_wire_request r{0, 0, id};
    quanta_wire_encode_request(bytes.data() + (id - 1) * QUANTA_WIRE_REQUEST_HEADER, &r);
  }
  const std::size_t partial = QUANTA_WIRE_REQUEST_HEADER + QUANTA_WIRE_REQUEST_HEADER / 2;
  ASSERT_EQ(::send(client_, bytes.data(), partial, MSG_NOSIGNAL), static_cast<ssize_t>(partial));
  Request* first = take_one();
  ASSERT_NE(first, nullptr);
  finish(first);  // half of request 2 waits in the buffer: the reply is held
  unsigned char byte = 0;
  EXPECT_EQ(::recv(client_, &byte, 1, MSG_DONTWAIT), -1) << "held while bytes wait in the buffer";
  Request* batch[8];
  EXPECT_EQ(front_end_.poll(0, batch, 8), 0u) << "request 2 is not all there";
  EXPECT_EQ(read_reply_id(), 1u) << "written by the poll that handed out nothing of its connection";
  const std::size_t rest = bytes.size() - partial;
  ASSERT_EQ(::send(client_, bytes.data() + partial, rest, MSG_NOSIGNAL), static_cast<ssize_t>(rest));
  Request* second = take_one();
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->cookie, 2u);
  finish(second);
  EXPECT_EQ(read_reply_id(), 2u);
  EXPECT_EQ(sends(), 2u);
}

TEST_F(TcpReads, QueuedRequestsSkipEpollButAnotherConnectionWaitsAtMostEightPolls) {
  // A second connection, accepted with the first request and silent until later.
  const int other = connect_other();
  // 40 requests at once on one connection: after the first, each poll takes the next from
  // the buffer as the previous one's reply goes out.
  std::vector<uint64_t> ids;
  for (uint64_t id = 1; id <= 40; ++id) ids.push_back(id);
  send_requests(ids);
  Request* r = take_one();
  ASSERT_NE(r, nullptr);
  const uint64_t waits_before = epoll_waits();
  for (uint64_t id = 2; id <= 17; ++id) {
    finish(r);
    Request* batch[8];
    ASSERT_EQ(front_end_.poll(0, batch, 8), 1u) << "the next request is in the buffer";
    r = batch[0];
    ASSERT_EQ(r->cookie, id);
  }
  // 16 polls, each with a request from the buffer: epoll asked at every 8th.
  EXPECT_EQ(epoll_waits() - waits_before, 2u);

  // Another connection sends a request while the first still has 23 queued: it is taken
  // within 8 polls, each of which also takes the first connection's next request.
  unsigned char bytes[QUANTA_WIRE_REQUEST_HEADER];
  const quanta_wire_request request{0, 0, 1000};
  quanta_wire_encode_request(bytes, &request);
  ASSERT_EQ(::send(other, bytes, sizeof bytes, MSG_NOSIGNAL), static_cast<ssize_t>(sizeof bytes));
  bool other_taken = false;
  int polls = 0;
  while (!other_taken && polls < 8) {
    finish(r);
    Request* batch[8];
    const uint32_t n = front_end_.poll(0, batch, 8);
    ++polls;
    for (uint32_t i = 0; i < n; ++i) {
      if (batch[i]->cookie == 1000) {
        other_taken = true;
        finish(batch[i]);
      } else {
        r = batch[i];
      }
    }
  }
  EXPECT_TRUE(other_taken) << "the other connection's request waited more than 8 polls";
  ::close(other);
}

}  // namespace
}  // namespace quanta
