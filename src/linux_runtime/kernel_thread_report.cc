#include "linux_runtime/kernel_thread_report.h"

namespace quanta {

void describe_kernel_threads(RunConfig& config, const KernelThreadOptions& options) {
  const bool per_class = !options.class_sched.empty();
  config.local_policy = per_class ? "sched-per-class" : std::string("sched-") + linux_policy_name(options.policy);
  config.dispatch_policy = per_class ? "queue-per-class" : "shared-queue";
  config.preempt = "kernel";
}

void add_kernel_thread_fields(nlohmann::json& report, const KernelThreadOptions& options,
                              const KernelThreadTotals& totals) {
  nlohmann::json& config = report["config"];
  config["runtime"] = "linux";
  config["linux_policy"] = linux_policy_name(options.policy);
  config["threads_per_core"] = options.threads_per_core;
  if (!options.class_sched.empty()) {
    // A pool per class: each class's threads_per_core x workers threads under its own policy.
    config["class_sched"] = options.class_sched;
    nlohmann::json pools = nlohmann::json::array();
    for (const KernelThreadOptions& k : parse_class_sched(options.class_sched, options)) {
      nlohmann::json pool{{"policy", linux_policy_name(k.policy)}, {"spec", describe_thread_policy(k)}};
      if (k.policy == LinuxPolicy::kOther) pool["nice"] = k.nice;
      if (k.policy == LinuxPolicy::kRoundRobin || k.policy == LinuxPolicy::kFifo) pool["rt_priority"] = k.rt_priority;
      if (k.policy == LinuxPolicy::kDeadline) {
        pool["deadline_runtime_us"] = k.deadline_runtime_us;
        pool["deadline_period_us"] = k.deadline_period_us;
      }
      pools.push_back(pool);
    }
    config["class_pools"] = pools;
    config.erase("linux_policy");
  }
  if (options.policy == LinuxPolicy::kDeadline) {
    config["deadline_runtime_us"] = options.deadline_runtime_us;
    config["deadline_period_us"] = options.deadline_period_us;
  }
  if (options.policy == LinuxPolicy::kRoundRobin || options.policy == LinuxPolicy::kFifo) {
    config["rt_priority"] = options.rt_priority;
  }
  report["runtime"]["kernel"] = {{"threads", totals.threads},
                                 {"involuntary_switches", totals.involuntary_switches},
                                 {"voluntary_switches", totals.voluntary_switches},
                                 {"handler_off_cpu_gaps", totals.handler_off_cpu_gaps},
                                 {"handler_off_cpu_ms", totals.handler_off_cpu_ms}};
}

}  // namespace quanta
