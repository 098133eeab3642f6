#include "experiment/in_process_run.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "core/tsc.h"
#include "io/generator_source.h"
#include "io/schedule.h"
#include "runtime/cpu_layout.h"
#include "runtime/quantum_watchdog.h"
#include "runtime/request_pool.h"
#include "runtime/runtime.h"

namespace quanta {

double offered_rate_rps(const RunConfig& config, double mean_service_us, unsigned workers) {
  if (config.rate_rps) return *config.rate_rps;
  if (!(mean_service_us > 0)) {
    throw std::invalid_argument("--load needs the mean service time, which is unknown: give --rate-rps");
  }
  return config.load * workers / (mean_service_us * 1e-6);
}

RuntimeConfig runtime_config_of(const RunConfig& config, std::size_t class_count) {
  RuntimeConfig r;
  r.workers = config.workers;
  r.quantum_us = config.quantum_us;
  r.local_policy = config.local_policy;
  r.dispatch_policy = config.dispatch_policy;
  r.preempt = config.preempt;
  r.backstop_us = config.backstop_us;
  r.dispatcher_works = config.dispatcher_works;
  r.dispatcher_only = config.dispatcher_only;
  r.task_slots = config.task_slots;
  r.stack_kib = config.stack_kib;
  r.ring_capacity = config.ring_capacity;
  r.on_full = config.on_full == "drop" ? FullRingAction::kDrop : FullRingAction::kWait;
  r.class_count = class_count;
  r.seed = config.seed;
  r.oversubscribe = config.oversubscribe;
  r.stall_threshold_us = config.stall_threshold_us;
  r.idle = config.idle;
  r.idle_spin_us = config.idle_spin_us;
  r.overrun_report_quanta = config.overrun_report_quanta;
  r.watchdog_ms = config.watchdog_ms;
  r.class_schedule = config.class_schedule;
  r.adaptive_quantum = config.adaptive_quantum;
  r.interval_s = config.interval_s;
  // Said as it happens: a run that then hangs has still told where.
  r.on_overrun = [](const OverrunReport& report) {
    std::fprintf(stderr, "quanta: watchdog: %s\n", describe_overrun(report).c_str());
  };
  return r;
}

namespace {

// A closed loop for the pilot: the next request is made once the previous one finished,
// so each runs alone and its CPU time is its own.
class PilotSource final : public Source, public Sink {
 public:
  PilotSource(const Workload& workload, const quanta_app& app, uint32_t requests, uint32_t payload_bytes,
              uint32_t response_bytes, uint64_t seed)
      : workload_(workload), app_(app), pool_(1, payload_bytes, response_bytes), left_(requests), rng_(seed),
        spec_rng_(seed) {}

  uint32_t poll(uint64_t now_tsc, Request** out, uint32_t max) override {
    if (max == 0 || left_ == 0 || busy_.load(std::memory_order_acquire)) return 0;
    Request* r = pool_.acquire();
    const ServiceSample s = workload_.sample(rng_);
    r->id = made_;
    r->arrival_tsc = now_tsc;
    r->class_index = s.class_index;
    r->flags = kRequestMeasured;
    r->sink = this;
    const quanta_request_spec spec{made_, s.class_index, 0, &spec_rng_};
    uint32_t len = 0;
    --left_;
    ++made_;
    if (app_.make_request(&spec, r->payload, r->payload_capacity, &len) != 0 || len > r->payload_capacity) {
      pool_.release(*r);
      return 0;
    }
    r->payload_len = len;
    busy_.store(true, std::memory_order_release);
    out[0] = r;
    return 1;
  }
  bool exhausted() const override { return left_ == 0 && !busy_.load(std::memory_order_acquire); }
  void close() override {}
  void complete(Request& r) override {
    cpu_cycles_ += r.cpu_cycles;
    ++completed_;
    pool_.release(r);
    busy_.store(false, std::memory_order_release);
  }
  void reject(Request& r, RejectReason) override {
    pool_.release(r);
    busy_.store(false, std::memory_order_release);
  }
  double mean_us() const { return completed_ ? cycles_to_ns(cpu_cycles_ / completed_) * 1e-3 : 0.0; }

 private:
  const Workload& workload_;
  const quanta_app& app_;
  RequestPool pool_;
  uint32_t left_;
  uint64_t made_ = 0;
  Rng rng_;
  uint64_t spec_rng_;
  std::atomic<bool> busy_{false};
  uint64_t cpu_cycles_ = 0;  // written by the worker, read after the run
  uint64_t completed_ = 0;
};

}  // namespace

double measure_mean_service_us(const Workload& workload, const quanta_app& app, const RunConfig& config,
                               uint32_t requests) {
  if (app.make_request == nullptr) {
    throw std::invalid_argument("the app '" + std::string(app.name ? app.name : "?") + "' has no make_request");
  }
  RunConfig pilot = config;
  pilot.workers = 1;
  pilot.local_policy = "fcfs";
  pilot.dispatch_policy = "jsq-msq";
  pilot.preempt = "none";
  pilot.dispatcher_works = false;
  pilot.oversubscribe = true;  // also on a machine with one CPU
  pilot.adaptive_quantum.reset();
  pilot.interval_s = 0;
  Runtime runtime(runtime_config_of(pilot, workload.classes().size()), app);
  PilotSource source(workload, app, requests, config.max_payload_bytes, config.max_response_bytes,
                     config.seed ^ 0x5eed);
  runtime.add_source(source);
  runtime.start(config.app_config);
  runtime.finish();
  const double mean = source.mean_us();
  if (!(mean > 0)) throw std::runtime_error("the pilot run measured no CPU time for the app's requests");
  return mean;
}

MeanService mean_service_for(const RunConfig& config, const Workload& workload, const quanta_app& app) {
  if (workload.service_known()) return {workload.mean_us(), workload.app_defined() ? "app" : "workload"};
  if (config.rate_rps) return {0, ""};
  if (config.measured_mean_service_us > 0) return {config.measured_mean_service_us, "measured"};
  return {measure_mean_service_us(workload, app, config), "measured"};
}

std::vector<Arrival> plan_run(const RunConfig& config, const Workload& workload, const quanta_app& app,
                              unsigned workers, RunResult& result) {
  result.config.workers = workers;
  if (config.interval_s > 0 && config.duration_s / config.interval_s > 10'000) {
    // As in the simulator: a time series a report can hold.
    char text[128];
    std::snprintf(text, sizeof text, "--interval-s: %g s makes over 10000 intervals of a %g s run; take a longer one",
                  config.interval_s, config.duration_s);
    throw std::invalid_argument(text);
  }
  const MeanService mean = mean_service_for(config, workload, app);
  result.mean_service_us = mean.us;
  result.mean_service_source = mean.source;
  result.offered_rps = offered_rate_rps(config, mean.us, workers);
  result.config.rate_rps = result.offered_rps;
  result.tsc_per_ns = tsc_per_ns();
  result.cpus = static_cast<unsigned>(allowed_cpus().size());
  result.app_name = app.name ? app.name : "";
  const RateProfile profile = RateProfile::parse(config.rate_profile);
  return make_poisson_schedule(workload, {result.offered_rps, config.duration_s, config.seed, &profile});
}

GeneratorOptions generator_options_of(const RunConfig& config, unsigned workers) {
  GeneratorOptions options;
  // As many requests in the system at once as the runtime admits (every ring and task
  // slot full, plus a batch): the rings' limits stay the ones that count.
  options.pool_size = workers * (config.ring_capacity + config.task_slots) + 64;
  options.payload_bytes = config.max_payload_bytes;
  options.response_bytes = config.max_response_bytes;
  options.measure_from_ns = static_cast<uint64_t>(config.warmup_frac * config.duration_s * 1e9);
  options.seed = config.seed;
  return options;
}

RunResult run_in_process(const RunConfig& config, const Workload& workload, const quanta_app& app) {
  RunResult result;
  result.config = config;
  const RuntimeConfig runtime_config = runtime_config_of(config, workload.classes().size());
  const unsigned workers = resolve_workers(runtime_config);
  const std::vector<Arrival> schedule = plan_run(config, workload, app, workers, result);
  GeneratorSource generator(schedule, workload, app, generator_options_of(config, workers));
  Runtime runtime(runtime_config, app);
  runtime.add_source(generator);
  runtime.start(config.app_config);
  const RuntimeResult r = runtime.finish();

  static_cast<RunCounters&>(result) = r;
  result.build_failures = generator.build_failures();
  result.elapsed_s = r.end_tsc > r.start_tsc ? cycles_to_ns(r.end_tsc - r.start_tsc) * 1e-9 : 0.0;
  result.quantum_series = r.quantum_series;
  result.late_periods = r.late_periods;
  result.intervals = r.intervals;
  return result;
}

}  // namespace quanta
