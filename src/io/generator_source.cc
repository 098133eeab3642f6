#include "io/generator_source.h"

#include <stdexcept>
#include <string>

#include "core/tsc.h"

namespace quanta {

GeneratorSource::GeneratorSource(std::span<const Arrival> schedule, const Workload& workload, const quanta_app& app,
                                 const GeneratorOptions& options)
    : schedule_(schedule),
      workload_(workload),
      app_(app),
      pool_(options.pool_size, options.payload_bytes, options.response_bytes),
      measure_from_ns_(options.measure_from_ns),
      rng_(options.seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull),
      cycles_per_ns_(tsc_per_ns()) {
  free_.reserve(pool_.capacity());
  if (app.make_request == nullptr) {
    throw std::invalid_argument("the app '" + std::string(app.name ? app.name : "?") +
                                "' has no make_request, so the generator cannot build its requests");
  }
}

bool GeneratorSource::exhausted() const {
  return closed_.load(std::memory_order_acquire) || next_ >= schedule_.size();
}

uint64_t GeneratorSource::due_tsc(std::size_t index) const {
  return start_tsc_ + static_cast<uint64_t>(static_cast<double>(schedule_[index].arrival_ns) * cycles_per_ns_);
}

bool GeneratorSource::prepare_idle_wait(IdleWait& wait) {
  if (start_tsc_ == 0 || closed_.load(std::memory_order_relaxed)) return false;
  if (next_ >= schedule_.size()) return true;  // nothing more will come
  const uint64_t due = due_tsc(next_);
  // Due already: the request waits for a record, which a worker gives back with no word
  // to the dispatcher, so it keeps polling.
  if (due <= read_tsc()) return false;
  if (due < wait.due_tsc) wait.due_tsc = due;
  return true;
}

uint32_t GeneratorSource::poll(uint64_t now_tsc, Request** out, uint32_t max) {
  if (start_tsc_ == 0) start_tsc_ = now_tsc;
  if (closed_.load(std::memory_order_relaxed)) return 0;
  uint32_t n = 0;
  while (n < max && next_ < schedule_.size()) {
    const Arrival& arrival = schedule_[next_];
    const uint64_t due = due_tsc(next_);
    if (now_tsc < due) break;
    if (free_.empty()) pool_.acquire_all(free_);
    // Every record is in the runtime: this arrival waits (and shows up as latency).
    if (free_.empty()) break;
    Request* r = &pool_.reset(*free_.back());
    free_.pop_back();
    const bool app_classes = workload_.app_defined();
    const double class_service_us = workload_.classes()[arrival.class_index].service_us;
    r->id = next_;
    r->arrival_tsc = due;
    r->class_index = arrival.class_index;
    // The workload's draw is the request's nominal service time; an app's class has one
    // only if the app declared it.
    r->nominal_service_ns = app_classes ? static_cast<uint32_t>(class_service_us * 1000.0 + 0.5) : arrival.service_ns;
    r->flags = arrival.arrival_ns >= measure_from_ns_ ? kRequestMeasured : 0;
    r->sink = this;
    const quanta_request_spec spec{r->id, arrival.class_index, app_classes ? 0u : arrival.service_ns, &rng_};
    uint32_t len = 0;
    ++next_;
    if (app_.make_request(&spec, r->payload, r->payload_capacity, &len) != 0 || len > r->payload_capacity) {
      ++build_failures_;
      free_.push_back(r);
      continue;
    }
    r->payload_len = len;
    out[n++] = r;
  }
  return n;
}

}  // namespace quanta
