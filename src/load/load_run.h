// One open-loop run of the client: a single thread, pinned, that spins on the cycle
// counter until each request's intended send time, sends it, and between sends reads the
// replies that have come (non-blocking sockets) and counts as dropped what waited longer
// than the timeout. Sending and receiving share the thread so the in-flight table needs no
// synchronisation and the client takes one CPU, not two (on a 2-CPU machine the server
// wants the rest).
#pragma once

#include <cstdint>
#include <vector>

#include "io/schedule.h"
#include "load/inflight_table.h"
#include "load/target.h"
#include "quanta/quanta.h"

namespace quanta {

struct LoadRunConfig {
  Target target;
  unsigned connections = 1;      // TCP
  double timeout_ms = 1000;      // a request with no reply this long after its send is dropped
  int cpu = -1;                  // pin the send loop here; -1: leave the thread where it is
  // Between sends: spin on the cycle counter (precise, but takes the CPU), or sleep in the
  // kernel until a reply comes or the next send nears (gives the CPU to whatever shares it).
  bool block_between_sends = false;
  bool progress = false;         // a line per second on stderr
  double duration_s = 0;         // for the progress line
  uint64_t seed = 1;             // the request builder's random stream
  unsigned max_payload_bytes = 1024;
  const quanta_app* app = nullptr;  // its make_request builds each payload
  bool app_classes = false;      // the app declares its classes: make_request gets no service time
};

struct LoadRunOutcome {
  explicit LoadRunOutcome(std::size_t requests) : table(requests) {}
  InflightTable table;
  ReplyAnomalies anomalies;
  uint64_t start_tsc = 0;         // intended send time of a request at schedule time 0
  uint64_t end_tsc = 0;           // last reply or timeout
  uint64_t sent = 0;              // requests handed to the socket (send failures included)
  uint64_t late_sends = 0;        // sent more than 1 us after the intended time
  uint64_t worst_send_lag_cycles = 0;
  uint64_t build_failures = 0;    // make_request refused: never sent
  uint64_t send_failures = 0;     // the socket refused: counted dropped
  uint64_t receive_errors = 0;
  unsigned closed_connections = 0;
};

// Sends `schedule` to the target and waits for every reply or timeout. Throws
// std::runtime_error when the sockets cannot be opened (nothing is sent then).
LoadRunOutcome run_load(const LoadRunConfig& config, const std::vector<Arrival>& schedule);

}  // namespace quanta
