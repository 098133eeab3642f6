#include "reference_responder.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

#include "quanta/wire.h"

namespace quanta::test {

ReferenceResponder::ReferenceResponder(Protocol protocol, ResponderBehaviour behaviour)
    : protocol_(protocol), behaviour_(behaviour) {
  listen_fd_ = ::socket(AF_INET, protocol == Protocol::kUdp ? SOCK_DGRAM : SOCK_STREAM, 0);
  if (listen_fd_ < 0) throw std::runtime_error("socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;  // any free port
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) throw std::runtime_error("bind");
  socklen_t len = sizeof address;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &len);
  port_ = ntohs(address.sin_port);
  if (protocol == Protocol::kTcp && ::listen(listen_fd_, 64) != 0) throw std::runtime_error("listen");
  thread_ = std::thread([this] { protocol_ == Protocol::kUdp ? serve_udp() : serve_tcp(); });
}

ReferenceResponder::~ReferenceResponder() {
  stop_ = true;
  thread_.join();
  ::close(listen_fd_);
}

std::vector<Received> ReferenceResponder::received() {
  std::lock_guard<std::mutex> lock(mutex_);
  return received_;
}

void ReferenceResponder::answer(uint64_t id, const unsigned char* payload, uint32_t len,
                                std::vector<unsigned char>& out) const {
  if (behaviour_.silent) return;
  if (behaviour_.drop_every != 0 && id % behaviour_.drop_every == behaviour_.drop_every - 1) return;
  quanta_wire_reply reply{};
  reply.request_id = id;
  reply.value = id;
  if (behaviour_.overloaded_every != 0 && id % behaviour_.overloaded_every == 0) {
    reply.kind = QUANTA_WIRE_OVERLOADED;
  } else {
    reply.kind = QUANTA_WIRE_OK;
    reply.response_len = len;
  }
  const std::size_t at = out.size();
  out.resize(at + QUANTA_WIRE_REPLY_HEADER);
  quanta_wire_encode_reply(out.data() + at, &reply);
  if (behaviour_.garbage_every != 0 && id % behaviour_.garbage_every == behaviour_.garbage_every - 1) {
    out[at] ^= 0xff;  // not the reply magic
  }
  if (reply.kind == QUANTA_WIRE_OK) out.insert(out.end(), payload, payload + len);
}

void ReferenceResponder::serve_udp() {
  unsigned char datagram[65536];
  std::vector<unsigned char> reply;
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 10) <= 0) continue;
    sockaddr_storage from{};
    socklen_t from_len = sizeof from;
    const ssize_t n = ::recvfrom(listen_fd_, datagram, sizeof datagram, 0, reinterpret_cast<sockaddr*>(&from), &from_len);
    if (n <= 0) continue;
    quanta_wire_request request;
    if (quanta_wire_decode_request(datagram, static_cast<uint32_t>(n), &request) != 1 ||
        request.payload_len != static_cast<uint32_t>(n) - QUANTA_WIRE_REQUEST_HEADER) {
      continue;  // the client's tests expect well-formed requests; the count would show a loss
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      received_.push_back({0, request.request_id});
    }
    reply.clear();
    answer(request.request_id, datagram + QUANTA_WIRE_REQUEST_HEADER, request.payload_len, reply);
    if (!reply.empty()) {
      ::sendto(listen_fd_, reply.data(), reply.size(), 0, reinterpret_cast<sockaddr*>(&from), from_len);
    }
  }
}

void ReferenceResponder::serve_tcp() {
  struct Peer {
    int fd;
    unsigned index;
    std::vector<unsigned char> in;
  };
  std::vector<Peer> peers;
  while (!stop_) {
    std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
    for (const Peer& p : peers) fds.push_back({p.fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), 10) <= 0) continue;
    if (fds[0].revents & POLLIN) {
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd >= 0) peers.push_back({fd, accepted_++, {}});
    }
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Peer& peer = peers[i - 1];
      unsigned char chunk[16384];
      const ssize_t n = ::recv(peer.fd, chunk, sizeof chunk, 0);
      if (n <= 0) {
        ::close(peer.fd);
        peer.fd = -1;
        continue;
      }
      peer.in.insert(peer.in.end(), chunk, chunk + n);
      std::vector<unsigned char> replies;
      std::size_t at = 0;
      for (;;) {
        quanta_wire_request request;
        const int got = quanta_wire_decode_request(peer.in.data() + at, static_cast<uint32_t>(peer.in.size() - at),
                                                   &request);
        if (got != 1 || peer.in.size() - at < QUANTA_WIRE_REQUEST_HEADER + request.payload_len) break;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          received_.push_back({peer.index, request.request_id});
        }
        answer(request.request_id, peer.in.data() + at + QUANTA_WIRE_REQUEST_HEADER, request.payload_len, replies);
        at += QUANTA_WIRE_REQUEST_HEADER + request.payload_len;
      }
      peer.in.erase(peer.in.begin(), peer.in.begin() + static_cast<std::ptrdiff_t>(at));
      std::size_t sent = 0;
      while (sent < replies.size()) {
        const ssize_t w = ::send(peer.fd, replies.data() + sent, replies.size() - sent, MSG_NOSIGNAL);
        if (w <= 0) break;
        sent += static_cast<std::size_t>(w);
      }
    }
    std::erase_if(peers, [](const Peer& p) { return p.fd < 0; });
  }
  for (const Peer& p : peers) ::close(p.fd);
}

}  // namespace quanta::test
