#include "linux_runtime/kernel_thread_report.h"

namespace quanta {

void describe_kernel_threads(RunConfig& config, const KernelThreadOptions& options) {
  config.local_policy = std::string("sched-") + linux_policy_name(options.policy);
  config.dispatch_policy = "shared-queue";
  config.preempt = "kernel";
}

void add_kernel_thread_fields(nlohmann::json& report, const KernelThreadOptions& options,
                              const KernelThreadTotals& totals) {
  nlohmann::json& config = report["config"];
  config["runtime"] = "linux";
  config["linux_policy"] = linux_policy_name(options.policy);
  config["threads_per_core"] = options.threads_per_core;
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
