#include "linux_options.h"

#include <span>

#include "finite_number.h"
#include "run_options.h"
#include "serve_options.h"

namespace quanta {
namespace {

// What the quanta runtime has and a pool of kernel threads does not: the kernel
// dispatches, schedules and preempts, and the queue is one unbounded deque.
constexpr const char* kRunQuantaOnly[] = {"--local", "--dispatch", "--preempt", "--quantum-us", "--backstop-us",
                                          "--task-slots", "--ring-capacity", "--on-full",
                                          "--dispatcher-works", "--oversubscribe", "--class-schedule", "--interval-s"};
// serve's --preempt is checked on its own (it may be the default, clock).
constexpr const char* kServeQuantaOnly[] = {"--local", "--dispatch", "--quantum-us", "--backstop-us",
                                            "--task-slots", "--ring-capacity", "--on-full",
                                            "--dispatcher-works", "--dispatcher-only", "--oversubscribe",
                                            "--overrun-report-quanta", "--watchdog-ms", "--class-schedule"};
constexpr const char* kLinuxOnly[] = {"--linux-policy", "--threads-per-core", "--deadline-runtime-us",
                                      "--deadline-period-us", "--class-sched"};

bool given(CLI::App& cmd, const char* name) {
  const CLI::Option* option = cmd.get_option_no_throw(name);
  return option != nullptr && option->count() > 0;
}

void check_combination(CLI::App& cmd, const std::string& runtime, const KernelThreadOptions& k,
                       std::span<const char* const> quanta_only) {
  if (runtime != "linux") {
    for (const char* name : kLinuxOnly) {
      if (given(cmd, name)) throw CLI::ValidationError(name, "applies only with --runtime linux");
    }
    return;
  }
  for (const char* name : quanta_only) {
    if (given(cmd, name)) {
      throw CLI::ValidationError(name, "does not apply with --runtime linux (the kernel schedules and preempts the "
                                       "pool's threads; see docs/linux-baseline.md)");
    }
  }
  if (!k.class_sched.empty()) {
    // Each class names its own policy and parameters.
    for (const char* name : {"--linux-policy", "--deadline-runtime-us", "--deadline-period-us"}) {
      if (given(cmd, name)) {
        throw CLI::ValidationError(name, "does not go with --class-sched, whose entries give each class's policy");
      }
    }
    return;
  }
  if (k.policy != LinuxPolicy::kDeadline) {
    for (const char* name : {"--deadline-runtime-us", "--deadline-period-us"}) {
      if (given(cmd, name)) throw CLI::ValidationError(name, "applies only with --linux-policy deadline");
    }
  }
  if (k.deadline_runtime_us > k.deadline_period_us) {
    throw CLI::ValidationError("--deadline-runtime-us", "must not exceed --deadline-period-us");
  }
}

void add_options(CLI::App& cmd, std::string& runtime, KernelThreadOptions& k) {
  cmd.add_option("--runtime", runtime,
                 "quanta (this runtime) or linux (the baseline: a pool of kernel threads under a Linux scheduling "
                 "class, one shared queue, handlers run to completion)")
      ->capture_default_str()
      ->check(CLI::IsMember({"quanta", "linux"}));
  cmd.add_option_function<std::string>(
         "--linux-policy", [&k](const std::string& name) { k.policy = parse_linux_policy(name); },
         "linux: the pool threads' class: other (SCHED_OTHER, default), rr, fifo (SCHED_RR/FIFO, priority " +
             std::to_string(k.rt_priority) + "), deadline (SCHED_DEADLINE: a runtime/period reservation per thread)")
      ->check(CLI::IsMember(linux_policy_names()));
  cmd.add_option_function<std::string>(
         "--class-sched",
         [&k](const std::string& spec) {
           try {
             parse_class_sched(spec, k);
           } catch (const std::invalid_argument& e) {
             throw CLI::ValidationError("--class-sched", e.what());
           }
           k.class_sched = spec;
         },
         "linux: a queue and a pool of threads per request class (by class index), each under its own policy: "
         "other[:NICE], rr[:PRIO], fifo[:PRIO], deadline[:RUNTIME/PERIOD] (us). E.g. fifo:50,other:10 or "
         "other,deadline:300/1000 (Microquanta's comparison: the classes --class-schedule gives the quanta runtime)");
  cmd.add_option("--threads-per-core", k.threads_per_core, "linux: pool threads per worker CPU, in each class's pool with --class-sched SPEC")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  cmd.add_option("--deadline-runtime-us", k.deadline_runtime_us,
                 "linux deadline: CPU time each pool thread is guaranteed per period")
      ->capture_default_str()
      ->check(finite_number())
      ->check(CLI::Range(1.1, 1e6));
  cmd.add_option("--deadline-period-us", k.deadline_period_us, "linux deadline: the reservation's period (= deadline)")
      ->capture_default_str()
      ->check(finite_number())
      ->check(CLI::Range(1.1, 1e6));
}

}  // namespace

void add_linux_runtime_options(CLI::App& cmd, RunOptions& o) {
  add_options(cmd, o.runtime, o.kernel_threads);
  cmd.parse_complete_callback([&cmd, &o] { check_combination(cmd, o.runtime, o.kernel_threads, kRunQuantaOnly); });
}

void add_linux_runtime_options(CLI::App& cmd, ServeOptions& o) {
  add_options(cmd, o.runtime, o.kernel_threads);
  cmd.parse_complete_callback([&cmd, &o] {
    check_combination(cmd, o.runtime, o.kernel_threads, kServeQuantaOnly);
    if (o.runtime == "linux" && o.config.preempt != "clock") {
      throw CLI::ValidationError("--preempt", "'" + o.config.preempt + "' does not apply with --runtime linux: "
                                              "only the kernel preempts the pool's threads (the pool runs the "
                                              "app's clock-probe build; leave --preempt out)");
    }
  });
}

}  // namespace quanta
