// The in-process open-loop generator as a source: it replays a precomputed arrival
// schedule in real time, and for each arrival asks the app to build the request's payload
// (quanta_app::make_request) for the class the schedule drew. A request's arrival time is
// its intended time on the schedule, so a late dispatcher shows up as latency. Finished
// requests only go back to its pool: their statistics were recorded by the runtime.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "io/schedule.h"
#include "io/workload.h"
#include "quanta/quanta.h"
#include "runtime/request_pool.h"
#include "runtime/source.h"

namespace quanta {

struct GeneratorOptions {
  uint32_t pool_size = 1;             // requests in flight at most (size it above what the runtime can hold)
  uint32_t payload_bytes = 4096;      // the most make_request may write
  uint32_t response_bytes = 4096;
  uint64_t measure_from_ns = 0;       // arrivals before this are warm-up: not in the statistics
  uint64_t seed = 1;                  // the random stream make_request draws from
};

class GeneratorSource final : public Source, public Sink {
 public:
  // `schedule` and `workload` must outlive the source. The app must have make_request.
  GeneratorSource(std::span<const Arrival> schedule, const Workload& workload, const quanta_app& app,
                  const GeneratorOptions& options);

  uint32_t poll(uint64_t now_tsc, Request** out, uint32_t max) override;
  bool exhausted() const override;
  void close() override { closed_.store(true, std::memory_order_release); }
  // --idle block: the dispatcher may sleep until the next arrival is due.
  bool prepare_idle_wait(IdleWait& wait) override;
  void complete(Request& request) override { pool_.release(request); }
  void reject(Request& request, RejectReason) override { pool_.release(request); }

  // Arrivals whose make_request failed (they were skipped).
  uint64_t build_failures() const { return build_failures_; }

 private:
  // When arrival `index` is due (after the first poll).
  uint64_t due_tsc(std::size_t index) const;

  std::span<const Arrival> schedule_;
  const Workload& workload_;
  const quanta_app& app_;
  RequestPool pool_;
  std::vector<Request*> free_;   // records taken from the pool in a batch, not yet used
  uint64_t measure_from_ns_;
  uint64_t rng_;
  double cycles_per_ns_;
  uint64_t start_tsc_ = 0;       // the first poll: the schedule's time zero
  std::size_t next_ = 0;
  std::atomic<bool> closed_{false};
  uint64_t build_failures_ = 0;
};

}  // namespace quanta
