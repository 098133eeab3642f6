// memcached's UDP frame header: the 8 bytes before a request's or reply's bytes in every
// datagram when a protocol uses memcached's datagram framing (QUANTA_DATAGRAM_MEMCACHED):
// request id, sequence number, datagram count, reserved, each a big-endian u16. The server
// copies a request's id into every datagram of its reply; a client matches replies by it
// and knows a reply is whole when it has `count` datagrams. Header-only: the server's
// front end and the load client both use it.
#pragma once

#include <cstdint>

namespace quanta {

struct MemcachedFrame {
  static constexpr uint32_t kBytes = 8;
  // The most bytes of one reply datagram, frame header included (memcached's own limit).
  static constexpr uint32_t kMaxDatagramBytes = 1400;

  uint16_t request_id = 0;
  uint16_t sequence = 0;
  uint16_t count = 1;

  void encode(unsigned char* out) const {
    put(out, request_id);
    put(out + 2, sequence);
    put(out + 4, count);
    put(out + 6, 0);
  }
  // False when fewer than kBytes are there.
  bool decode(const unsigned char* in, uint32_t len) {
    if (len < kBytes) return false;
    request_id = get(in);
    sequence = get(in + 2);
    count = get(in + 4);
    return true;
  }

 private:
  static void put(unsigned char* p, uint16_t v) {
    p[0] = static_cast<unsigned char>(v >> 8);
    p[1] = static_cast<unsigned char>(v);
  }
  static uint16_t get(const unsigned char* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
};

}  // namespace quanta
