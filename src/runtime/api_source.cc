#include "runtime/api_source.h"

#include <cstring>

#include "core/tsc.h"

namespace quanta {

ApiSource::ApiSource(uint32_t max_in_flight, uint32_t payload_bytes, uint32_t response_bytes, uint32_t class_count,
                     quanta_completion_fn on_complete, void* user, unsigned finishers)
    : pool_(max_in_flight, payload_bytes, response_bytes),
      submissions_(max_in_flight),
      class_count_(class_count),
      on_complete_(on_complete),
      user_(user) {
  if (on_complete_ == nullptr) {
    for (unsigned i = 0; i <= finishers; ++i) done_.push_back(std::make_unique<SpscRing<Request*>>(max_in_flight));
  }
  lent_.reserve(max_in_flight);
}

int ApiSource::submit(const void* payload, uint32_t len, uint32_t class_index, uint64_t cookie,
                      uint64_t quantum_cycles, std::string& why) {
  if (payload == nullptr && len > 0) {
    why = "payload is NULL but len is " + std::to_string(len);
    return QUANTA_ERR_INVALID;
  }
  if (len > pool_.payload_bytes()) {
    why = "payload of " + std::to_string(len) + " bytes is over max_payload_bytes (" +
          std::to_string(pool_.payload_bytes()) + ")";
    return QUANTA_ERR_TOO_BIG;
  }
  if (class_index >= class_count_) {
    why = "class_index " + std::to_string(class_index) + " is not below class_count (" +
          std::to_string(class_count_) + ")";
    return QUANTA_ERR_INVALID;
  }
  // Announce the submit before looking at closed_: the dispatcher counts the source
  // exhausted only when it is closed and no submit is between its check and its push.
  submitting_.fetch_add(1, std::memory_order_seq_cst);
  if (closed_.load(std::memory_order_seq_cst)) {
    submitting_.fetch_sub(1, std::memory_order_seq_cst);
    why = "the runtime is stopping or stopped";
    return QUANTA_ERR_STATE;
  }
  Request* request = pool_.acquire();
  if (request == nullptr) {
    submitting_.fetch_sub(1, std::memory_order_seq_cst);
    why = "max_in_flight (" + std::to_string(pool_.capacity()) +
          ") requests are in the runtime: take completions, then retry";
    return QUANTA_ERR_FULL;
  }
  request->id = submitted_.fetch_add(1, std::memory_order_relaxed);
  request->cookie = cookie;
  request->class_index = class_index;
  request->quantum_cycles = quantum_cycles;
  request->flags = kRequestMeasured;
  request->payload_len = len;
  request->sink = this;
  if (len > 0) std::memcpy(request->payload, payload, len);
  request->arrival_tsc = read_tsc();
  // The queue is as large as the pool, so a record always finds a cell.
  submissions_.try_push(request);
  submitting_.fetch_sub(1, std::memory_order_seq_cst);
  bell_.ring();
  return QUANTA_OK;
}

uint32_t ApiSource::poll(uint64_t, Request** out, uint32_t max) {
  uint32_t n = 0;
  while (n < max && submissions_.try_pop(out[n])) ++n;
  return n;
}

bool ApiSource::exhausted() const {
  if (!closed_.load(std::memory_order_seq_cst) || submitting_.load(std::memory_order_seq_cst) != 0) return false;
  // Closed with no submit under way: nothing will be pushed again, and only the
  // dispatcher (the caller) pops.
  return submissions_.empty_when_quiet();
}

bool ApiSource::prepare_idle_wait(IdleWait& wait) {
  if (!wait.add_fd(bell_.fd())) return false;
  bell_.arm();
  return submissions_.looks_empty();
}

void ApiSource::close() { closed_.store(true, std::memory_order_seq_cst); }

quanta_completion ApiSource::completion_of(const Request& r) {
  quanta_completion c{};
  c.cookie = r.cookie;
  c.id = r.id;
  c.class_index = r.class_index;
  c.status = r.status;
  c.response = r.response;
  c.response_len = r.response_len;
  c.worker = r.worker;
  c.value = r.value;
  c.arrival_tsc = r.arrival_tsc;
  c.start_tsc = r.start_tsc;
  c.finish_tsc = r.finish_tsc;
  c.cpu_cycles = r.cpu_cycles;
  c.quanta = r.quanta;
  c.stall_touched = (r.flags & kRequestStallTouched) != 0 ? 1u : 0u;
  return c;
}

void ApiSource::complete(Request& request) {
  if (on_complete_ != nullptr) {
    const quanta_completion c = completion_of(request);
    on_complete_(&c, user_);
    pool_.release(request);
    return;
  }
  // Every ring holds the whole pool, so the push cannot fail.
  done_[static_cast<std::size_t>(request.worker + 1)]->try_push(&request);
}

void ApiSource::reject(Request& request, RejectReason) {
  // The API's runtime waits on a full ring rather than drop, so this is for completeness:
  // a dropped request still gets its completion, with status QUANTA_ERR_FULL.
  request.status = QUANTA_ERR_FULL;
  request.worker = -1;
  request.finish_tsc = read_tsc();
  complete(request);
}

void ApiSource::release_lent() {
  for (Request* r : lent_) pool_.release(*r);
  lent_.clear();
}

int ApiSource::poll_completions(quanta_completion* out, uint32_t max, std::string& why) {
  if (on_complete_ != nullptr) {
    why = "completions go to the on_complete callback of this runtime";
    return QUANTA_ERR_STATE;
  }
  if (polling_.exchange(true, std::memory_order_acquire)) {
    why = "another thread is polling this runtime";
    return QUANTA_ERR_BUSY;
  }
  release_lent();
  uint32_t n = 0;
  for (std::size_t k = 0; k < done_.size() && n < max; ++k) {
    SpscRing<Request*>& ring = *done_[(next_ring_ + k) % done_.size()];
    Request* r = nullptr;
    while (n < max && ring.try_pop(r)) {
      out[n++] = completion_of(*r);
      lent_.push_back(r);
    }
  }
  next_ring_ = (next_ring_ + 1) % done_.size();
  polling_.store(false, std::memory_order_release);
  return static_cast<int>(n);
}

}  // namespace quanta
