// The public C API (include/quanta/runtime.h) over Runtime and ApiSource. Every entry
// point checks its arguments and the runtime's state, catches every exception, and turns
// it into an error code plus a message for quanta_last_error(): nothing thrown crosses into
// C, and misuse never crashes.
#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "quanta/runtime.h"
#include "core/tsc.h"
#include "runtime/app_abi.h"
#include "runtime/api_source.h"
#include "policy/adaptive_quantum.h"
#include "runtime/runtime.h"
#include "stats/histogram.h"

#ifndef QUANTA_VERSION_STRING
#define QUANTA_VERSION_STRING "0.0.0"
#endif

struct quanta_runtime {
  enum class State { kRunning, kStopped };
  quanta_app app{};  // the caller's, in the current ABI's shape; outlives the runtime below
  std::unique_ptr<quanta::ApiSource> source;
  std::unique_ptr<quanta::Runtime> runtime;
  quanta::RuntimeResult result;
  State state = State::kRunning;
  uint32_t class_count = 1;
};

namespace {

thread_local std::string t_last_error;

int fail(int code, const std::string& why) {
  t_last_error = why;
  return code;
}

constexpr uint32_t kDefaultMaxInFlight = 4096;
constexpr uint32_t kDefaultMaxBytes = 4096;
constexpr uint32_t kMaxBufferBytes = 64u << 20;  // per request and direction

const char* or_default(const char* text, const char* fallback) { return text != nullptr ? text : fallback; }

// Checks what RuntimeConfig does not: the API's own limits.
int check_api_options(const quanta_runtime_options& o) {
  if (o.size != sizeof(quanta_runtime_options)) {
    return fail(QUANTA_ERR_INVALID, "options.size is " + std::to_string(o.size) + ", expected " +
                                        std::to_string(sizeof(quanta_runtime_options)) +
                                        " (call quanta_runtime_options_init first)");
  }
  if (o.max_in_flight == 0 || o.max_in_flight > (1u << 22)) {
    return fail(QUANTA_ERR_INVALID, "max_in_flight must be from 1 to 4194304, not " + std::to_string(o.max_in_flight));
  }
  if (o.max_payload_bytes > kMaxBufferBytes || o.max_response_bytes > kMaxBufferBytes) {
    return fail(QUANTA_ERR_INVALID, "max_payload_bytes and max_response_bytes must be at most 64 MiB");
  }
  if (static_cast<double>(o.max_in_flight) * (o.max_payload_bytes + static_cast<double>(o.max_response_bytes)) >
      static_cast<double>(1ull << 40)) {
    return fail(QUANTA_ERR_INVALID, "max_in_flight x (max_payload_bytes + max_response_bytes) is over 1 TiB");
  }
  if (o.class_count == 0 || o.class_count > 65536) {
    return fail(QUANTA_ERR_INVALID, "class_count must be from 1 to 65536, not " + std::to_string(o.class_count));
  }
  quanta::IdleMode idle{};
  if (!quanta::parse_idle_mode(or_default(o.idle, "spin"), idle)) {
    return fail(QUANTA_ERR_INVALID, std::string("idle must be \"spin\", \"yield\" or \"block\", not \"") + o.idle + "\"");
  }
  if (o.adaptive_quantum != nullptr) {
    try {
      quanta::parse_adaptive_quantum(o.adaptive_quantum);
    } catch (const std::invalid_argument& e) {
      return fail(QUANTA_ERR_INVALID, std::string("adaptive_quantum: ") + e.what());
    }
  }
  if (o.worker_cpus != nullptr && o.workers == 0) {
    return fail(QUANTA_ERR_INVALID, "worker_cpus needs workers set to how many CPUs it names");
  }
  return QUANTA_OK;
}

quanta::RuntimeConfig config_of(const quanta_runtime_options& o) {
  quanta::RuntimeConfig c;
  c.workers = o.workers;
  c.dispatcher_cpu = o.dispatcher_cpu;
  if (o.worker_cpus != nullptr) c.worker_cpus.assign(o.worker_cpus, o.worker_cpus + o.workers);
  c.quantum_us = o.quantum_us;
  c.local_policy = or_default(o.local_policy, "ps");
  c.dispatch_policy = or_default(o.dispatch_policy, "jsq-msq");
  c.preempt = or_default(o.preempt, "clock");
  c.backstop_us = o.backstop_us;
  c.dispatcher_works = o.dispatcher_works != 0;
  c.task_slots = o.task_slots;
  c.stack_kib = o.stack_kib;
  c.ring_capacity = o.ring_capacity;
  c.class_count = o.class_count;
  c.oversubscribe = o.oversubscribe != 0;
  quanta::parse_idle_mode(or_default(o.idle, "spin"), c.idle);  // checked by check_api_options
  c.idle_spin_us = o.idle_spin_us;
  c.dispatcher_only = o.dispatcher_only != 0;
  c.overrun_report_quanta = o.overrun_report_quanta;
  c.watchdog_ms = o.watchdog_ms;
  if (o.class_quantum_us != nullptr) c.class_quantum_us.assign(o.class_quantum_us, o.class_quantum_us + o.class_count);
  if (o.class_schedule != nullptr) c.class_schedule = o.class_schedule;
  if (o.adaptive_quantum != nullptr) c.adaptive_quantum = quanta::parse_adaptive_quantum(o.adaptive_quantum);
  c.on_full = quanta::FullRingAction::kWait;  // the API bounds requests by max_in_flight instead
  return c;
}

quanta_latency latency_of(const quanta::Histogram& h, double scale) {
  return {h.mean() * scale, static_cast<double>(h.value_at_percentile(50)) * scale,
          static_cast<double>(h.value_at_percentile(99)) * scale,
          static_cast<double>(h.value_at_percentile(99.9)) * scale, static_cast<double>(h.max()) * scale};
}

}  // namespace

extern "C" {

const char* quanta_error_name(int code) {
  switch (code) {
    case QUANTA_OK: return "QUANTA_OK";
    case QUANTA_ERR_INVALID: return "QUANTA_ERR_INVALID";
    case QUANTA_ERR_STATE: return "QUANTA_ERR_STATE";
    case QUANTA_ERR_FULL: return "QUANTA_ERR_FULL";
    case QUANTA_ERR_TOO_BIG: return "QUANTA_ERR_TOO_BIG";
    case QUANTA_ERR_APP: return "QUANTA_ERR_APP";
    case QUANTA_ERR_SYSTEM: return "QUANTA_ERR_SYSTEM";
    case QUANTA_ERR_BUSY: return "QUANTA_ERR_BUSY";
    default: return "unknown";
  }
}

const char* quanta_last_error(void) { return t_last_error.c_str(); }

const char* quanta_version(void) { return QUANTA_VERSION_STRING; }

void quanta_runtime_options_init(quanta_runtime_options* o) {
  if (o == nullptr) return;
  *o = quanta_runtime_options{};
  o->size = sizeof(quanta_runtime_options);
  o->dispatcher_cpu = -1;
  o->quantum_us = 2.0;
  o->local_policy = "ps";
  o->dispatch_policy = "jsq-msq";
  o->preempt = "clock";
  o->backstop_us = 100;
  o->overrun_report_quanta = 10000;
  o->stack_kib = 64;
  o->task_slots = 64;
  o->ring_capacity = 4096;
  o->max_in_flight = kDefaultMaxInFlight;
  o->max_payload_bytes = kDefaultMaxBytes;
  o->max_response_bytes = kDefaultMaxBytes;
  o->class_count = 1;
  o->idle = "spin";
  o->idle_spin_us = 20;
}

int quanta_runtime_start(const quanta_runtime_options* options, const quanta_app* app, const char* config,
                         quanta_runtime** out) {
  if (out == nullptr) return fail(QUANTA_ERR_INVALID, "out is NULL");
  *out = nullptr;
  if (options == nullptr) return fail(QUANTA_ERR_INVALID, "options is NULL");
  if (app == nullptr) return fail(QUANTA_ERR_INVALID, "app is NULL");
  quanta_app current{};
  if (const std::string why = quanta::read_app_abi(*app, current); !why.empty()) {
    return fail(QUANTA_ERR_INVALID, "app->abi_version: the app was " + why + " (rebuild the app)");
  }
  if (current.handle_request == nullptr) return fail(QUANTA_ERR_INVALID, "app->handle_request is NULL");
  if (const int code = check_api_options(*options); code != QUANTA_OK) return code;
  try {
    auto rt = std::make_unique<quanta_runtime>();
    rt->app = current;
    rt->class_count = options->class_count;
    rt->runtime = std::make_unique<quanta::Runtime>(config_of(*options), rt->app);
    rt->source = std::make_unique<quanta::ApiSource>(options->max_in_flight, options->max_payload_bytes,
                                                     options->max_response_bytes, options->class_count,
                                                     options->on_complete, options->on_complete_user,
                                                     rt->runtime->workers());
    rt->runtime->add_source(*rt->source);
    try {
      rt->runtime->start(config != nullptr ? config : "");
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      const bool app_failed = what.find("setup") != std::string::npos;
      return fail(app_failed ? QUANTA_ERR_APP : QUANTA_ERR_SYSTEM, what);
    }
    *out = rt.release();
    return QUANTA_OK;
  } catch (const std::invalid_argument& e) {
    return fail(QUANTA_ERR_INVALID, e.what());
  } catch (const std::bad_alloc&) {
    return fail(QUANTA_ERR_SYSTEM, "out of memory");
  } catch (const std::exception& e) {
    return fail(QUANTA_ERR_SYSTEM, e.what());
  }
}

int quanta_runtime_submit(quanta_runtime* rt, const void* payload, uint32_t len, uint32_t class_index,
                          uint64_t cookie) {
  return quanta_runtime_submit_with_quantum(rt, payload, len, class_index, cookie, 0);
}

int quanta_runtime_submit_with_quantum(quanta_runtime* rt, const void* payload, uint32_t len, uint32_t class_index,
                                       uint64_t cookie, double quantum_us) {
  if (rt == nullptr) return fail(QUANTA_ERR_INVALID, "runtime is NULL");
  if (!(quantum_us == 0 || (quantum_us >= 1e-3 && quantum_us <= 1e9))) {
    return fail(QUANTA_ERR_INVALID, "quantum_us must be 0 (the class's or the runtime's) or from 0.001 to 1e9");
  }
  std::string why;
  const uint64_t cycles = quantum_us == 0 ? 0 : std::max<uint64_t>(1, quanta::ns_to_cycles(quantum_us * 1000.0));
  const int code = rt->source->submit(payload, len, class_index, cookie, cycles, why);
  if (code != QUANTA_OK) return fail(code, why);
  return QUANTA_OK;
}

int quanta_runtime_set_quantum(quanta_runtime* rt, double quantum_us) {
  if (rt == nullptr) return fail(QUANTA_ERR_INVALID, "runtime is NULL");
  if (rt->state == quanta_runtime::State::kStopped) return fail(QUANTA_ERR_STATE, "the runtime was stopped already");
  try {
    rt->runtime->set_quantum_us(quantum_us);
  } catch (const std::invalid_argument& e) {
    return fail(QUANTA_ERR_INVALID, e.what());
  } catch (const std::logic_error& e) {
    return fail(QUANTA_ERR_STATE, e.what());
  }
  return QUANTA_OK;
}

int quanta_runtime_quantum(const quanta_runtime* rt, double* quantum_us) {
  if (rt == nullptr) return fail(QUANTA_ERR_INVALID, "runtime is NULL");
  if (quantum_us == nullptr) return fail(QUANTA_ERR_INVALID, "quantum_us is NULL");
  *quantum_us = rt->runtime->quantum_us();
  return QUANTA_OK;
}

int quanta_runtime_quantum_decisions(const quanta_runtime* rt, quanta_quantum_decision* out, uint32_t max) {
  if (rt == nullptr) return fail(QUANTA_ERR_INVALID, "runtime is NULL");
  if (out == nullptr && max > 0) return fail(QUANTA_ERR_INVALID, "out is NULL");
  if (rt->state != quanta_runtime::State::kStopped) {
    return fail(QUANTA_ERR_STATE, "the controller's decisions are ready once the runtime is stopped");
  }
  const std::vector<quanta::AdaptiveQuantumStep>& series = rt->result.quantum_series;
  for (std::size_t i = 0; i < series.size() && i < max; ++i) {
    const quanta::AdaptiveQuantumStep& q = series[i];
    out[i] = {q.at_s,         q.decision.quantum_us, q.inputs.load, q.inputs.queue_per_worker,
              q.inputs.p50_us, q.inputs.p99_us,      q.decision.tail_index,
              (q.decision.high_load ? QUANTA_RULE_HIGH_LOAD : 0u) | (q.decision.long_queue ? QUANTA_RULE_LONG_QUEUE : 0u) |
                  (q.decision.heavy_tail ? QUANTA_RULE_HEAVY_TAIL : 0u) |
                  (q.decision.low_load ? QUANTA_RULE_LOW_LOAD : 0u)};
  }
  return static_cast<int>(std::min<std::size_t>(series.size(), INT32_MAX));
}

int quanta_runtime_poll(quanta_runtime* rt, quanta_completion* out, uint32_t max) {
  if (rt == nullptr) return fail(QUANTA_ERR_INVALID, "runtime is NULL");
  if (out == nullptr && max > 0) return fail(QUANTA_ERR_INVALID, "out is NULL");
  std::string why;
  const int n = rt->source->poll_completions(out, max, why);
  if (n < 0) return fail(n, why);
  return n;
}

int quanta_runtime_stop(quanta_runtime* rt, quanta_run_stats* stats) {
  if (rt == nullptr) return fail(QUANTA_ERR_INVALID, "runtime is NULL");
  if (rt->state == quanta_runtime::State::kStopped) return fail(QUANTA_ERR_STATE, "the runtime was stopped already");
  try {
    rt->result = rt->runtime->stop();
  } catch (const std::exception& e) {
    return fail(QUANTA_ERR_SYSTEM, e.what());
  }
  rt->state = quanta_runtime::State::kStopped;
  if (stats != nullptr) {
    const quanta::RuntimeResult& r = rt->result;
    *stats = quanta_run_stats{};
    stats->submitted = rt->source->submitted();
    stats->completed = r.completed;
    stats->app_errors = r.app_errors;
    stats->quanta = r.quanta;
    stats->migrations = r.migrations;
    stats->elapsed_s = r.end_tsc > r.start_tsc ? quanta::cycles_to_ns(r.end_tsc - r.start_tsc) * 1e-9 : 0.0;
    stats->class_count = rt->class_count;
    stats->overruns = r.overruns;
    for (const quanta::StallSummary& s : r.stalls) {
      stats->host_stalls += s.count;
      stats->host_stalled_ms += s.total_ns * 1e-6;
    }
    for (std::size_t i = 0; i < r.classes.size(); ++i) {
      const uint64_t untouched = i < r.untouched.size() ? r.untouched[i].sojourn_ns.count() : 0;
      stats->stall_touched += r.classes[i].sojourn_ns.count() - untouched;
    }
  }
  return QUANTA_OK;
}

namespace {

// One class of `set` (every request, or the untouched ones) in the API's form.
int class_stats_of(const quanta_runtime* rt, const quanta::ClassStatsSet quanta::RunCounters::*set,
                   uint32_t class_index, quanta_class_stats* out) {
  if (rt == nullptr) return fail(QUANTA_ERR_INVALID, "runtime is NULL");
  if (out == nullptr) return fail(QUANTA_ERR_INVALID, "out is NULL");
  if (rt->state != quanta_runtime::State::kStopped) {
    return fail(QUANTA_ERR_STATE, "class statistics are ready once the runtime is stopped");
  }
  if (class_index >= rt->class_count) {
    return fail(QUANTA_ERR_INVALID, "class_index " + std::to_string(class_index) + " is not below class_count (" +
                                        std::to_string(rt->class_count) + ")");
  }
  const quanta::ClassStatsSet& stats = rt->result.*set;
  *out = quanta_class_stats{};
  if (class_index >= stats.size()) return QUANTA_OK;  // none recorded
  const quanta::ClassStats& s = stats[class_index];
  const uint64_t count = s.sojourn_ns.count();
  out->completed = count;
  out->sojourn_us = latency_of(s.sojourn_ns, 1e-3);
  out->cpu_us = latency_of(s.cpu_ns, 1e-3);
  out->slowdown = latency_of(s.slowdown_milli, 1e-3);
  out->preemptions_per_request = count ? static_cast<double>(s.preemptions) / static_cast<double>(count) : 0.0;
  return QUANTA_OK;
}

}  // namespace

int quanta_runtime_class_stats(const quanta_runtime* rt, uint32_t class_index, quanta_class_stats* out) {
  return class_stats_of(rt, &quanta::RunCounters::classes, class_index, out);
}

int quanta_runtime_untouched_class_stats(const quanta_runtime* rt, uint32_t class_index, quanta_class_stats* out) {
  return class_stats_of(rt, &quanta::RunCounters::untouched, class_index, out);
}

int quanta_runtime_class_usage(const quanta_runtime* rt, uint32_t class_index, quanta_class_usage* out) {
  if (rt == nullptr) return fail(QUANTA_ERR_INVALID, "runtime is NULL");
  if (out == nullptr) return fail(QUANTA_ERR_INVALID, "out is NULL");
  if (rt->state != quanta_runtime::State::kStopped) {
    return fail(QUANTA_ERR_STATE, "class usage is ready once the runtime is stopped");
  }
  const quanta::ClassUsageSet& usage = rt->result.class_usage;
  if (usage.empty()) return fail(QUANTA_ERR_STATE, "the runtime ran without a class_schedule");
  if (class_index >= usage.size()) {
    return fail(QUANTA_ERR_INVALID, "class_index " + std::to_string(class_index) + " is not below the schedule's " +
                                        std::to_string(usage.size()) + " classes");
  }
  const quanta::ClassUsage& u = usage[class_index];
  *out = quanta_class_usage{u.quanta, u.cpu_ns * 1e-3, u.budget_ended_quanta, u.throttled_spells,
                            u.admissions_deferred};
  return QUANTA_OK;
}

void quanta_runtime_destroy(quanta_runtime* rt) {
  if (rt == nullptr) return;
  if (rt->state == quanta_runtime::State::kRunning) {
    try {
      rt->runtime->stop();
    } catch (...) {
      // Destroy cannot report; the threads are joined either way.
    }
  }
  rt->source->release_lent();
  delete rt;
}

}  // extern "C"
