// A small server for the client's tests, on loopback, written from include/quanta/wire.h
// alone: it answers each request OK with its payload echoed (value = the request id), or,
// as configured, drops some, answers some OVERLOADED, or never answers. It records what it
// received so tests can check ids and per-connection order. One thread, blocking in poll()
// with a short timeout, so it never competes for the CPU the client spins on.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace quanta::test {

struct ResponderBehaviour {
  unsigned drop_every = 0;        // request ids with id % drop_every == drop_every - 1 get no reply (0: none)
  unsigned overloaded_every = 0;  // ... with id % overloaded_every == 0 get OVERLOADED (0: none)
  bool silent = false;            // never reply
  unsigned garbage_every = 0;     // ... with id % garbage_every == garbage_every - 1 get a reply with a bad magic
};

struct Received {
  unsigned connection;  // TCP: the accepted connection's index; UDP: 0
  uint64_t request_id;
};

class ReferenceResponder {
 public:
  enum class Protocol { kUdp, kTcp };
  ReferenceResponder(Protocol protocol, ResponderBehaviour behaviour);
  ~ReferenceResponder();

  unsigned port() const { return port_; }
  // What arrived, in order; call after the client finished.
  std::vector<Received> received();
  unsigned connections_accepted() const { return accepted_; }

 private:
  void serve_udp();
  void serve_tcp();
  // The reply for one request, or nothing; appended to `out`.
  void answer(uint64_t id, const unsigned char* payload, uint32_t len, std::vector<unsigned char>& out) const;

  Protocol protocol_;
  ResponderBehaviour behaviour_;
  int listen_fd_ = -1;
  unsigned port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<unsigned> accepted_{0};
  std::mutex mutex_;
  std::vector<Received> received_;
  std::thread thread_;
};

}  // namespace quanta::test
