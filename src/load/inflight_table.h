// What the client knows about each request it schedules, indexed by request_id (the
// request's place in the send schedule, so the lookup is an array index). The send loop
// stamps times and outcomes here and nothing else; statistics are computed from the table
// after the run, so the loop does no histogram work between sends.
#pragma once

#include <cstdint>
#include <vector>

namespace quanta {

enum class Outcome : uint8_t {
  kNotSent,      // not yet reached, or the app could not build its payload
  kInFlight,     // sent, no reply yet
  kOk,           // answered: the handler ran
  kOverloaded,   // the server refused it for lack of room
  kBadRequest,   // the server could not read it
  kDropped,      // no reply within the timeout, or the send itself failed
};

struct RequestSlot {
  uint64_t sent_tsc = 0;   // when the send call returned (TCP: when the bytes were queued)
  uint64_t reply_tsc = 0;  // when the reply was read
  Outcome outcome = Outcome::kNotSent;
  bool build_failed = false;
  bool send_failed = false;
};

// Counts of replies that match no request in flight.
struct ReplyAnomalies {
  uint64_t late = 0;          // for a request already counted dropped (came after the timeout)
  uint64_t unknown = 0;       // an id never sent, or answered twice
  uint64_t out_of_order = 0;  // TCP: a reply for an earlier request than the connection's last reply
  uint64_t malformed = 0;     // bad magic or unknown kind (UDP: the datagram; TCP: the connection closes)
};

class InflightTable {
 public:
  explicit InflightTable(std::size_t requests) : slots_(requests) {}

  std::size_t size() const { return slots_.size(); }
  const RequestSlot& operator[](std::size_t id) const { return slots_[id]; }

  void mark_sent(uint64_t id, uint64_t tsc) {
    slots_[id].sent_tsc = tsc;
    slots_[id].outcome = Outcome::kInFlight;
    ++in_flight_;
  }
  void mark_build_failed(uint64_t id) { slots_[id].build_failed = true; }
  // A send that failed outright (the socket refused it): dropped at once.
  void mark_send_failed(uint64_t id, uint64_t tsc) {
    slots_[id].sent_tsc = tsc;
    slots_[id].send_failed = true;
    slots_[id].outcome = Outcome::kDropped;
    ++dropped_;
  }

  // A reply of `kind` (a QUANTA_WIRE_* kind) for `id`, read at `tsc`. Returns false (and
  // counts the anomaly) when no request `id` is in flight.
  bool resolve(uint64_t id, uint16_t kind, uint64_t tsc, ReplyAnomalies& anomalies);

  // Counts as dropped every request in flight sent at or before `deadline_tsc` (now minus
  // the timeout). Requests are sent in id order, so a cursor over the oldest one makes the
  // sweep cost nothing when nothing is due.
  void sweep(uint64_t deadline_tsc, uint64_t sent_so_far);

  uint64_t in_flight() const { return in_flight_; }
  uint64_t answered() const { return answered_; }
  uint64_t dropped() const { return dropped_; }
  uint64_t overloaded() const { return overloaded_; }
  uint64_t bad_request() const { return bad_request_; }

 private:
  std::vector<RequestSlot> slots_;
  std::size_t oldest_ = 0;  // no request below it is in flight
  uint64_t in_flight_ = 0, answered_ = 0, dropped_ = 0, overloaded_ = 0, bad_request_ = 0;
};

}  // namespace quanta
