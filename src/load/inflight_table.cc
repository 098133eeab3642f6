#include "load/inflight_table.h"

#include "quanta/wire.h"

namespace quanta {

bool InflightTable::resolve(uint64_t id, uint16_t kind, uint64_t tsc, ReplyAnomalies& anomalies) {
  if (id >= slots_.size()) {
    ++anomalies.unknown;
    return false;
  }
  RequestSlot& slot = slots_[id];
  if (slot.outcome != Outcome::kInFlight) {
    if (slot.outcome == Outcome::kDropped && !slot.send_failed) {
      ++anomalies.late;
    } else {
      ++anomalies.unknown;
    }
    return false;
  }
  slot.reply_tsc = tsc;
  --in_flight_;
  switch (kind) {
    case QUANTA_WIRE_OK:
      slot.outcome = Outcome::kOk;
      ++answered_;
      break;
    case QUANTA_WIRE_OVERLOADED:
      slot.outcome = Outcome::kOverloaded;
      ++overloaded_;
      break;
    default:
      slot.outcome = Outcome::kBadRequest;
      ++bad_request_;
      break;
  }
  return true;
}

void InflightTable::sweep(uint64_t deadline_tsc, uint64_t sent_so_far) {
  std::size_t i = oldest_;
  while (i < sent_so_far) {
    RequestSlot& slot = slots_[i];
    if (slot.outcome == Outcome::kInFlight) {
      if (slot.sent_tsc > deadline_tsc) break;  // neither it nor any later one is due
      slot.outcome = Outcome::kDropped;
      --in_flight_;
      ++dropped_;
    }
    ++i;
  }
  oldest_ = i;
}

}  // namespace quanta
