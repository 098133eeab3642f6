// The public API's side of the runtime: requests that the application's own threads
// submit (a source), and their completions (a sink), delivered to a callback on the
// finishing thread or queued for quanta_runtime_poll().
//
// Submissions go through a lock-free queue that any number of threads may push to and
// that the dispatcher drains. Each submitted request holds a record of the source's pool
// until its completion is taken back (after the callback returns, or at the poll after
// the one that returned it), so the pool's size is the bound on requests in flight.
// Completions wait in one single-producer ring per finishing thread (each worker, and the
// dispatcher), each as large as the pool: a worker never waits on a slow poller.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quanta/runtime.h"
#include "runtime/doorbell.h"
#include "runtime/mpmc_queue.h"
#include "runtime/request_pool.h"
#include "runtime/source.h"
#include "runtime/spsc_ring.h"

namespace quanta {

class ApiSource final : public Source, public Sink {
 public:
  // `finishers`: the workers that may complete requests (the dispatcher comes on top).
  ApiSource(uint32_t max_in_flight, uint32_t payload_bytes, uint32_t response_bytes, uint32_t class_count,
            quanta_completion_fn on_complete, void* user, unsigned finishers);

  // QUANTA_OK or an error code, with the reason in `why`. Any thread.
  // `quantum_cycles`: the request's own quantum length (0: its class's or the runtime's).
  int submit(const void* payload, uint32_t len, uint32_t class_index, uint64_t cookie, uint64_t quantum_cycles,
             std::string& why);
  // A count or an error code (QUANTA_ERR_BUSY when another thread polls). One thread at a time.
  int poll_completions(quanta_completion* out, uint32_t max, std::string& why);
  // Gives back the records the last poll lent out (at stop and destroy).
  void release_lent();

  uint64_t submitted() const { return submitted_.load(std::memory_order_relaxed); }

  // Source (the dispatcher's thread).
  uint32_t poll(uint64_t now_tsc, Request** out, uint32_t max) override;
  bool exhausted() const override;
  void close() override;
  bool prepare_idle_wait(IdleWait& wait) override;
  void end_idle_wait() override { bell_.disarm(); }
  // Sink (the finishing thread).
  void complete(Request& request) override;
  void reject(Request& request, RejectReason why) override;

 private:
  static quanta_completion completion_of(const Request& request);

  RequestPool pool_;
  MpmcQueue<Request*> submissions_;
  std::vector<std::unique_ptr<SpscRing<Request*>>> done_;  // [0]: the dispatcher, [1 + w]: worker w
  std::vector<Request*> lent_;                               // returned by the last poll
  uint32_t class_count_;
  quanta_completion_fn on_complete_;
  void* user_;
  std::atomic<bool> closed_{false};
  std::atomic<uint32_t> submitting_{0};  // submits between their closed_ check and their push
  std::atomic<uint64_t> submitted_{0};
  std::atomic<bool> polling_{false};
  std::size_t next_ring_ = 0;            // where the next poll starts, for fairness
  Doorbell bell_;                        // --idle block: a submit wakes the dispatcher
};

}  // namespace quanta
