// What the kernel-thread baseline (`quanta run --runtime linux`) adds to a RunConfig: the
// Linux scheduling class of the pool's threads and how many threads share each worker CPU.
#pragma once

#include <string>
#include <vector>

namespace quanta {

enum class LinuxPolicy { kOther, kRoundRobin, kFifo, kDeadline };

struct KernelThreadOptions {
  LinuxPolicy policy = LinuxPolicy::kOther;
  unsigned threads_per_core = 4;
  // SCHED_DEADLINE reservation of each pool thread: `runtime` of CPU every `period`
  // (deadline = period). The kernel admits the set only if the sum of runtime/period over
  // all deadline threads fits in the root domain's RT bandwidth (95% of each CPU here).
  double deadline_runtime_us = 200;
  double deadline_period_us = 1000;
  int rt_priority = 10;  // rr / fifo: above every SCHED_OTHER thread, below kernel RT threads
  int nice = 0;          // other: the threads' nice value (-20..19; below 0 needs CAP_SYS_NICE)
  // --class-sched: a pool and a queue per request class, each under its own class (the
  // fields above, per class: parse_class_sched). Empty: one pool for every class.
  std::string class_sched;
};

// "fifo:50,deadline:300/1000": one entry per request class index, each other[:NICE],
// rr[:PRIO], fifo[:PRIO] or deadline[:RUNTIME/PERIOD] (us); what an entry leaves out comes
// from `base` (threads_per_core always does). Throws std::invalid_argument naming the entry.
std::vector<KernelThreadOptions> parse_class_sched(const std::string& spec, const KernelThreadOptions& base);
// The same entry's words for a report: "fifo:50", "other:-5", "deadline:300/1000".
std::string describe_thread_policy(const KernelThreadOptions& options);

// "other", "rr", "fifo", "deadline" in that order.
const std::vector<std::string>& linux_policy_names();
// Throws std::invalid_argument naming the accepted names.
LinuxPolicy parse_linux_policy(const std::string& name);
const char* linux_policy_name(LinuxPolicy policy);

}  // namespace quanta
