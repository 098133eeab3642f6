#include "runtime/run_sampler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "core/tsc.h"

namespace quanta {
namespace {

// `now` minus `before`, bucket by bucket (counts only grow).
std::vector<uint64_t> difference(const std::vector<uint64_t>& now, const std::vector<uint64_t>& before) {
  std::vector<uint64_t> d(now.size(), 0);
  for (std::size_t i = 0; i < now.size(); ++i) d[i] = now[i] - (i < before.size() ? before[i] : 0);
  return d;
}

}  // namespace

RunSampler::RunSampler(const RunSamplerConfig& config, RunSamplerInputs inputs, QuantumLengths& quanta)
    : config_(config), inputs_(std::move(inputs)), quanta_(quanta) {
  if (config_.adaptive) quantum_us_ = std::clamp(config_.first_quantum_us, config_.adaptive->min_us, config_.adaptive->max_us);
}

RunSampler::~RunSampler() {
  if (thread_.joinable()) stop();
}

std::vector<uint64_t> RunSampler::read_sojourns() const {
  std::vector<uint64_t> sum(LiveHistogram::bucket_count(), 0);
  for (const LiveHistogram* h : inputs_.sojourns) h->add_counts_to(sum);
  return sum;
}

uint64_t RunSampler::read_busy_cycles() const {
  uint64_t sum = 0;
  for (const std::atomic<uint64_t>* b : inputs_.busy_cycles) sum += b->load(std::memory_order_relaxed);
  return sum;
}

void RunSampler::start() {
  start_tsc_ = read_tsc();
  last_decision_tsc_ = start_tsc_;
  last_period_counts_.assign(LiveHistogram::bucket_count(), 0);
  last_interval_counts_.assign(LiveHistogram::bucket_count(), 0);
  if (config_.adaptive) quanta_.set_runtime_cycles(ns_to_cycles(quantum_us_ * 1000.0));
  thread_ = std::thread([this] { run(); });
}

void RunSampler::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void RunSampler::decide(uint64_t now_tsc, double at_s) {
  const AdaptiveQuantumParams& params = *config_.adaptive;
  const std::vector<uint64_t> counts = read_sojourns();
  const std::vector<uint64_t> period = difference(counts, last_period_counts_);
  const uint64_t busy = read_busy_cycles();
  const double elapsed_cycles = static_cast<double>(now_tsc - last_decision_tsc_);
  const double workers = config_.workers;
  AdaptiveQuantumInputs in;
  in.load = elapsed_cycles > 0 ? static_cast<double>(busy - last_busy_cycles_) / (workers * elapsed_cycles) : 0;
  const uint64_t in_runtime = inputs_.in_runtime();
  in.queue_per_worker = in_runtime > config_.workers ? static_cast<double>(in_runtime - config_.workers) / workers : 0;
  in.p50_us = percentile_of(period, 50) / 1e3;
  in.p99_us = percentile_of(period, 99) / 1e3;
  const AdaptiveQuantumDecision d = decide_quantum(params, quantum_us_, in);
  quantum_us_ = d.quantum_us;
  quanta_.set_runtime_cycles(ns_to_cycles(quantum_us_ * 1000.0));
  decisions_.push_back({at_s, in, d});
  last_period_counts_ = counts;
  last_busy_cycles_ = busy;
  last_decision_tsc_ = now_tsc;
}

void RunSampler::close_interval(std::size_t index) {
  const std::vector<uint64_t> counts = read_sojourns();
  const std::vector<uint64_t> d = difference(counts, last_interval_counts_);
  if (intervals_.size() <= index) intervals_.resize(index + 1);
  IntervalStats& s = intervals_[index];
  s.completed = count_of(d);
  if (s.completed > 0) {
    s.p50_us = percentile_of(d, 50) / 1e3;
    s.p99_us = percentile_of(d, 99) / 1e3;
    s.p999_us = percentile_of(d, 99.9) / 1e3;
  }
  last_interval_counts_ = counts;
}

void RunSampler::run() {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  const double period_s = config_.adaptive ? config_.adaptive->period_s : kNever;
  const double interval_s = config_.interval_s > 0 ? config_.interval_s : kNever;
  uint64_t next_period = 1, next_interval = 1;  // the boundaries due next, counted from the start
  const double ns_per_cycle = 1.0 / tsc_per_ns();
  auto seconds_since_start = [&](uint64_t tsc) { return static_cast<double>(tsc - start_tsc_) * ns_per_cycle * 1e-9; };
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    const double due_s = std::min(static_cast<double>(next_period) * period_s, static_cast<double>(next_interval) * interval_s);
    const double wait_s = due_s - seconds_since_start(read_tsc());
    if (wait_s > 0 && !stopping_) {
      wake_.wait_for(lock, std::chrono::nanoseconds(static_cast<int64_t>(std::min(wait_s, 3600.0) * 1e9)),
                     [this] { return stopping_; });
    }
    const uint64_t now = read_tsc();
    const double now_s = seconds_since_start(now);
    if (stopping_) {
      // The last, partial interval: what finished since the last boundary, if anything
      // did (as in the simulator, the series ends with the last completion's interval).
      if (interval_s != kNever && count_of(difference(read_sojourns(), last_interval_counts_)) > 0) {
        close_interval(static_cast<std::size_t>(next_interval - 1));
      }
      return;
    }
    if (static_cast<double>(next_period) * period_s <= now_s) {
      // Boundaries passed so far (at least the one due: the division may round below it).
      const uint64_t passed = std::max(next_period, static_cast<uint64_t>(now_s / period_s));
      late_periods_ += passed - next_period;
      decide(now, static_cast<double>(passed) * period_s);
      next_period = passed + 1;
    }
    if (static_cast<double>(next_interval) * interval_s <= now_s) {
      // Boundaries passed while asleep leave their intervals empty; what finished in them
      // counts in the last one.
      const uint64_t passed = std::max(next_interval, static_cast<uint64_t>(now_s / interval_s));
      close_interval(static_cast<std::size_t>(passed - 1));
      next_interval = passed + 1;
    }
  }
}

}  // namespace quanta
