#include "test_apps.h"

#include <atomic>
#include <cstring>

#include "experiment/in_process_run.h"
#include "spin_app.h"

namespace quanta::testing {
namespace {

constexpr int kMaxWorkers = 256;
// Requests finished per worker, counted by the handlers themselves.
std::atomic<uint64_t> g_finished_on[kMaxWorkers];
std::atomic<uint64_t> g_region_violations{0};

void spin_for(uint64_t cycles) {
  while (quanta_task_cpu_cycles() < cycles) quanta_probe();
}

void region_handle(const quanta_request* request, quanta_response* response) {
  uint64_t cycles = 0;
  std::memcpy(&cycles, request->payload, sizeof cycles);
  const int worker = quanta_worker_index();
  if (request->class_index == 1) {
    quanta_preempt_disable();
    const uint64_t before = g_finished_on[worker].load();
    spin_for(cycles);
    const uint64_t during = g_finished_on[worker].load() - before;
    if (during != 0) g_region_violations.fetch_add(1);
    response->value = during;
    quanta_preempt_enable();
  } else {
    spin_for(cycles);
  }
  g_finished_on[worker].fetch_add(1);
}

const quanta_app kRegionApp = spin_payload_app("region", &region_handle);

}  // namespace

quanta_app spin_payload_app(const char* name, void (*handler)(const quanta_request*, quanta_response*)) {
  quanta_app app{};
  app.abi_version = QUANTA_APP_ABI_VERSION;
  app.name = name;
  app.handle_request = handler;
  app.make_request = &synthetic_spin_make_request;
  return app;
}

const quanta_app& region_app() { return kRegionApp; }
uint64_t region_violations() { return g_region_violations.load(); }

RunResult run_small(const std::string& workload, const std::string& local, const std::string& dispatch,
                    double load, double duration_s, uint64_t seed, const std::string& preempt,
                    double quantum_us) {
  RunConfig config;
  config.workload = workload;
  config.local_policy = local;
  config.dispatch_policy = dispatch;
  config.load = load;
  config.duration_s = duration_s;
  config.warmup_frac = 0;
  config.seed = seed;
  config.preempt = preempt;
  config.quantum_us = quantum_us;
  return run_in_process(config, Workload::parse(workload), *quanta_spin_app_for(preempt.c_str()));
}

}  // namespace quanta::testing
