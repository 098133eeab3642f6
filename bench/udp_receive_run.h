// One measurement of one receive method (bench/udp_receivers.h) on loopback: the cost of
// polls that find nothing, or the cost per datagram while a sender on another CPU sends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace quanta::bench {

struct RunSettings {
  std::string method;
  uint32_t datagram_bytes = 24;   // a wire request header (16 bytes) and 8 bytes of payload
  double seconds = 0.5;           // timed receiving per load run
  double send_rate_dps = 0;       // datagrams per second the sender aims at; 0: as fast as it can
  uint32_t empty_poll_samples = 20000;
  int receiver_cpu = 0;
  int sender_cpu = 1;
};

// Polls timed together per empty-poll sample: a read of the cycle counter costs about as
// much as the cheapest poll, so each sample spreads two reads over this many polls.
constexpr uint32_t kPollsPerSample = 64;

// Median ns per poll on a socket where nothing arrives, on the receiver's CPU.
double measure_empty_poll_ns(const RunSettings& s);

struct LoadRun {
  double seconds = 0;               // the timed window
  uint64_t received = 0;            // datagrams taken in the window
  uint64_t sent = 0;                // datagrams the kernel took from the sender, whole run
  uint64_t received_total = 0;      // datagrams taken, whole run (warm-up and drain too)
  uint64_t data_cycles = 0;         // inside polls that returned datagrams
  uint64_t empty_cycles = 0;        // inside polls that returned nothing
  // Median of a whole loop iteration whose poll found nothing (the poll, reading the
  // clock, the loop): empty iterations cost this each, the rest of the window went to
  // datagrams (including kernel work done on this CPU outside the calls).
  uint64_t median_empty_iteration_cycles = 0;
  uint64_t loop_cycles = 0;         // the whole window
  uint64_t data_polls = 0, empty_polls = 0;
  // Median over the polls that returned datagrams of each one's cycles per datagram: what
  // a typical poll costs, unlike the sums above untouched by a poll during which the
  // thread lost its CPU (another process, the host).
  double median_poll_cycles_per_datagram = 0;
  std::optional<uint32_t> kernel_drops;  // SO_RXQ_OVFL's count, where the method reads it
  uint64_t rearms = 0;
};

// Receives for s.seconds (after a short warm-up) while a pinned sender sends, then stops
// the sender and drains the socket so that sent - received_total is what was dropped.
LoadRun measure_load(const RunSettings& s);

}  // namespace quanta::bench
