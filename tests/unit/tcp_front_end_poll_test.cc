// The TCP front end's two ways of learning which sockets are ready (--tcp-poll epoll and
// io_uring), driven from this thread as the dispatcher would drive them, with real
// sockets on loopback: after an idle spell a request on an open connection and a new
// connection are both served; more ready sockets than one epoll_wait returns are all
// served; an idle io_uring poll asks epoll nothing; a dispatcher asleep on the set (--idle
// block) is woken by a request and the poll after the wake serves it. A lost wake-up
// shows as a poll loop that reaches its deadline (10 s: only a failure ever waits that long).
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <linux/sockios.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/tsc.h"
#include "net/epoll_ready_ring.h"
#include "net/listen_address.h"
#include "net/net_counters.h"
#include "net/tcp_front_end.h"
#include "net/wire_format.h"
#include "quanta/wire.h"
#include "runtime/dispatcher_sleep.h"
#include "runtime/doorbell.h"

namespace quanta {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kDeadline = std::chrono::seconds(10);

class TcpPoll : public ::testing::TestWithParam<TcpPollMethod> {
 protected:
  TcpPoll()
      : format_(64, 1),
        front_end_(parse_listen_address("tcp://127.0.0.1:0"), FrontEndLimits{}, TcpLimits{}, format_, counters_,
                   GetParam()) {}

  int connect_client() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT_GE(fd, 0);
    const sockaddr_storage& address = front_end_.address();
    EXPECT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(sockaddr_in)), 0) << std::strerror(errno);
    const int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    const timeval timeout{10, 0};  // a reply that never comes fails the read instead of hanging
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    clients_.push_back(fd);
    return fd;
  }

  static void send_request(int fd, uint64_t id) {
    unsigned char bytes[QUANTA_WIRE_REQUEST_HEADER];
    const quanta_wire_request r{0, 0, id};
    quanta_wire_encode_request(bytes, &r);
    ASSERT_EQ(::send(fd, bytes, sizeof bytes, MSG_NOSIGNAL), static_cast<ssize_t>(sizeof bytes));
  }

  // The id of the next reply on `fd` (UINT64_MAX if none came).
  static uint64_t read_reply(int fd) {
    unsigned char bytes[QUANTA_WIRE_REPLY_HEADER];
    std::size_t got = 0;
    while (got < sizeof bytes) {
      const ssize_t n = ::recv(fd, bytes + got, sizeof bytes - got, 0);
      if (n <= 0) return UINT64_MAX;
      got += static_cast<std::size_t>(n);
    }
    quanta_wire_reply reply{};
    if (quanta_wire_decode_reply(bytes, sizeof bytes, &reply) != 1 || reply.kind != QUANTA_WIRE_OK) return UINT64_MAX;
    return reply.request_id;
  }

  // One dispatcher poll: every request it yields is "run" (an empty response) and handed
  // back, as a worker would; its reply goes out at a later poll.
  uint32_t poll_once() {
    Request* batch[32];
    const uint32_t n = front_end_.poll(0, batch, 32);
    for (uint32_t i = 0; i < n; ++i) {
      batch[i]->response_len = 0;
      batch[i]->value = batch[i]->cookie;
      front_end_.complete(*batch[i]);
    }
    served_ += n;
    return n;
  }

  // Polls until `count` more requests have been taken and their replies written, or the
  // deadline; returns how many were taken.
  uint64_t serve(uint64_t count) {
    const uint64_t goal = served_ + count;
    const auto deadline = Clock::now() + kDeadline;
    while (served_ < goal && Clock::now() < deadline) poll_once();
    const uint64_t taken = served_ - (goal - count);
    poll_once();  // writes the last replies
    return taken;
  }

  uint64_t epoll_waits() const { return counters_.get(NetCounter::kTcpEpollWaits); }

  ~TcpPoll() override {
    for (int fd : clients_) ::close(fd);
  }

  NetCounters counters_;
  DefaultWireFormat format_;
  TcpFrontEnd front_end_;
  std::vector<int> clients_;
  uint64_t served_ = 0;
};

TEST_P(TcpPoll, AfterAnIdleSpellAnOpenConnectionAndANewOneAreBothServed) {
  const int first = connect_client();
  send_request(first, 1);
  ASSERT_EQ(serve(1), 1u);
  EXPECT_EQ(read_reply(first), 1u);

  // Idle: nothing arrives while the dispatcher polls, then nothing at all for a while.
  constexpr int kIdlePolls = 20000;
  for (int i = 0; i < kIdlePolls; ++i) ASSERT_EQ(poll_once(), 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (int i = 0; i < 100; ++i) ASSERT_EQ(poll_once(), 0u);

  send_request(first, 2);
  ASSERT_EQ(serve(1), 1u) << "a request on an open connection was not seen after the idle spell";
  EXPECT_EQ(read_reply(first), 2u);
  const int second = connect_client();
  send_request(second, 3);
  ASSERT_EQ(serve(1), 1u) << "a new connection's request was not seen after the idle spell";
  EXPECT_EQ(read_reply(second), 3u);
  EXPECT_EQ(counters_.get(NetCounter::kTcpConnections), 2u);
  EXPECT_EQ(counters_.get(NetCounter::kTcpRepliesOk), 3u);
  EXPECT_EQ(counters_.get(NetCounter::kTcpPollRingErrors), 0u);
}

TEST_P(TcpPoll, IdlePollsAskEpollEveryTimeOnlyWithoutTheRing) {
  const int client = connect_client();
  send_request(client, 7);
  ASSERT_EQ(serve(1), 1u);
  ASSERT_EQ(read_reply(client), 7u);
  for (int i = 0; i < 10; ++i) poll_once();  // whatever the reply's sending left to look at
  const uint64_t before = epoll_waits();
  constexpr uint64_t kIdlePolls = 10000;
  for (uint64_t i = 0; i < kIdlePolls; ++i) ASSERT_EQ(poll_once(), 0u);
  const uint64_t asked = epoll_waits() - before;
  if (GetParam() == TcpPollMethod::kEpoll) {
    EXPECT_EQ(asked, kIdlePolls);
  } else {
    // Nothing happened on any socket: nothing to ask about. (A few allow for an event the
    // kernel may still raise on a connection, an acknowledgement that frees send room.)
    EXPECT_LE(asked, 3u);
  }
}

TEST_P(TcpPoll, MoreReadySocketsThanOneHarvestHoldsAreAllServed) {
  // 100 connections, each with a request waiting before the next poll: more than the 64
  // events one epoll_wait returns.
  constexpr int kConnections = 100;
  for (int i = 0; i < kConnections; ++i) connect_client();
  const auto deadline = Clock::now() + kDeadline;
  while (counters_.get(NetCounter::kTcpConnections) < kConnections && Clock::now() < deadline) poll_once();
  ASSERT_EQ(counters_.get(NetCounter::kTcpConnections), static_cast<uint64_t>(kConnections));
  // Each connection's registration reported it writable: poll until the ring has nothing
  // more to say (a poll that asks epoll nothing; with epoll, a few polls).
  for (int i = 0; i < 1000; ++i) {
    const uint64_t before = epoll_waits();
    poll_once();
    if (epoll_waits() == before || (GetParam() == TcpPollMethod::kEpoll && i == 10)) break;
  }
  // Sent from another thread, as clients do, while this one stays out of the kernel, then
  // one system call here: the ring's check of the set runs then (it runs as this thread
  // leaves the kernel), once for all 100, and leaves one completion. So the first harvest
  // takes 64 with no check pending to notice the other 36: they are served only if the
  // front end asks epoll again by itself. The sender waits until the server's kernel has
  // acknowledged every request (nothing left in the client's send queue): on loopback the
  // acknowledgement is handled after the server socket's wake-up, so every wake-up
  // precedes that system call.
  std::atomic<bool> sent{false};
  std::thread sender([&] {
    for (int i = 0; i < kConnections; ++i) send_request(clients_[i], 100 + i);
    const auto until = Clock::now() + kDeadline;
    for (int i = 0; i < kConnections && Clock::now() < until;) {
      int unacknowledged = 0;
      ::ioctl(clients_[i], SIOCOUTQ, &unacknowledged);
      if (unacknowledged == 0) ++i;
    }
    sent.store(true, std::memory_order_release);
  });
  while (!sent.load(std::memory_order_acquire)) cpu_relax();
  sender.join();
  (void)::getppid();
  ASSERT_EQ(serve(kConnections), static_cast<uint64_t>(kConnections));
  for (int i = 0; i < kConnections; ++i) EXPECT_EQ(read_reply(clients_[i]), static_cast<uint64_t>(100 + i));
  EXPECT_EQ(counters_.get(NetCounter::kTcpPollRingErrors), 0u);
}

TEST_P(TcpPoll, ADispatcherAsleepOnTheSetIsWokenAndThePollAfterServesWhatWokeIt) {
  Doorbell runtime_bell;
  DispatcherSleep sleep(runtime_bell, 1);
  Source* sources[] = {&front_end_};
  const int first = connect_client();
  send_request(first, 1);
  ASSERT_EQ(serve(1), 1u);
  ASSERT_EQ(read_reply(first), 1u);

  // Sleeps (after polling whatever the last step left to do) until the sleep is taken;
  // meanwhile `client_side` runs on another thread, a little later so that it finds the
  // dispatcher asleep (if it comes early the sleep ends at once: the same wake-up).
  const auto sleep_through = [&](auto client_side) {
    std::thread client([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      client_side();
    });
    const auto deadline = Clock::now() + kDeadline;
    while (sleep.try_sleep(sources) != DispatcherSleep::Outcome::kSlept && Clock::now() < deadline) {
      ASSERT_EQ(poll_once(), 0u);
    }
    client.join();
  };

  sleep_through([&] { send_request(first, 2); });
  ASSERT_EQ(serve(1), 1u) << "the request that woke the dispatcher was not served";
  EXPECT_EQ(read_reply(first), 2u);

  int second = -1;
  sleep_through([&] {
    second = connect_client();
    send_request(second, 3);
  });
  ASSERT_EQ(serve(1), 1u) << "the connection that woke the dispatcher was not served";
  EXPECT_EQ(read_reply(second), 3u);
  EXPECT_GE(sleep.sleeps(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Methods, TcpPoll, ::testing::Values(TcpPollMethod::kEpoll, TcpPollMethod::kIoUring),
                         [](const ::testing::TestParamInfo<TcpPollMethod>& info) {
                           return info.param == TcpPollMethod::kEpoll ? std::string("epoll") : std::string("io_uring");
                         });

// The ring on its own, on an epoll set of one eventfd: signalled by an event and by
// nothing else.
TEST(EpollReadyRing, SignalsAnEventOnTheSetAndOnlyThen) {
  const int epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  ASSERT_GE(epoll_fd, 0);
  const int event_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  ASSERT_GE(event_fd, 0);
  epoll_event e{};
  e.events = EPOLLIN | EPOLLET;
  ASSERT_EQ(::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, event_fd, &e), 0);
  {
    EpollReadyRing ring(epoll_fd);
    EXPECT_TRUE(ring.signalled());    // not armed yet: nothing could tell
    EXPECT_TRUE(ring.take_signal());  // arms it, and says to look (anything may have come before)
    EXPECT_EQ(ring.arms(), 1u);
    for (int i = 0; i < 1000; ++i) ASSERT_FALSE(ring.take_signal());
    EXPECT_FALSE(ring.signalled());
    for (int round = 0; round < 3; ++round) {
      const uint64_t one = 1;
      ASSERT_EQ(::write(event_fd, &one, sizeof one), static_cast<ssize_t>(sizeof one));
      // The wake queued the poll's check for this thread; it ran as write() returned.
      EXPECT_TRUE(ring.signalled());
      EXPECT_TRUE(ring.take_signal());
      epoll_event got[4];
      ASSERT_EQ(::epoll_wait(epoll_fd, got, 4, 0), 1);
      uint64_t value = 0;
      ASSERT_EQ(::read(event_fd, &value, sizeof value), static_cast<ssize_t>(sizeof value));
      // Harvested: quiet again (what the check found ready has been taken).
      int late = 0;
      for (int i = 0; i < 1000; ++i) late += ring.take_signal() ? 1 : 0;
      EXPECT_LE(late, 1);
      EXPECT_FALSE(ring.take_signal());
    }
    EXPECT_EQ(ring.arms(), 1u);  // one multishot poll all along
    EXPECT_EQ(ring.errors(), 0u);
  }
  ::close(event_fd);
  ::close(epoll_fd);
}

}  // namespace
}  // namespace quanta
