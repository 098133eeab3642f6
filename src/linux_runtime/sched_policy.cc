#include "linux_runtime/sched_policy.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <thread>

#include "runtime/cpu_layout.h"

namespace quanta {
namespace {

// The kernel's struct sched_attr (include/uapi/linux/sched/types.h), first version.
struct SchedAttr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;   // ns
  uint64_t sched_deadline;  // ns
  uint64_t sched_period;    // ns
};

constexpr uint32_t kSchedDeadline = 6;

int set_deadline(const KernelThreadOptions& o) {
  SchedAttr attr{};
  attr.size = sizeof attr;
  attr.sched_policy = kSchedDeadline;
  attr.sched_runtime = static_cast<uint64_t>(o.deadline_runtime_us * 1000);
  attr.sched_period = static_cast<uint64_t>(o.deadline_period_us * 1000);
  attr.sched_deadline = attr.sched_period;
  if (syscall(SYS_sched_setattr, 0, &attr, 0u) != 0) return errno;
  return 0;
}

int set_realtime(int policy, int priority) {
  const sched_param param{.sched_priority = priority};
  return pthread_setschedparam(pthread_self(), policy, &param);
}

}  // namespace

int apply_sched_policy(const KernelThreadOptions& o) {
  switch (o.policy) {
    case LinuxPolicy::kOther:
      // Linux keeps a nice value per thread: PRIO_PROCESS of a thread id sets that one's.
      if (o.nice != 0 && setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), o.nice) != 0) return errno;
      return 0;
    case LinuxPolicy::kRoundRobin:
      return set_realtime(SCHED_RR, o.rt_priority);
    case LinuxPolicy::kFifo:
      return set_realtime(SCHED_FIFO, o.rt_priority);
    case LinuxPolicy::kDeadline:
      return set_deadline(o);
  }
  return EINVAL;
}

std::string sched_policy_error(const KernelThreadOptions& o, int error, const std::string& option) {
  std::string text = option + " " + (option == "--linux-policy" ? std::string(linux_policy_name(o.policy))
                                                                : describe_thread_policy(o)) +
                     ": cannot set the scheduling policy: " + std::strerror(error);
  if (o.policy == LinuxPolicy::kOther && (error == EACCES || error == EPERM)) {
    text += " (a nice value below 0 needs CAP_SYS_NICE or an RLIMIT_NICE that allows it)";
  } else if (error == EPERM && o.policy == LinuxPolicy::kDeadline) {
    text += " (SCHED_DEADLINE needs CAP_SYS_NICE and threads whose affinity covers their whole root domain: run "
            "without taskset/cpuset restrictions)";
  } else if (error == EPERM) {
    text += " (needs CAP_SYS_NICE or an RLIMIT_RTPRIO of at least " + std::to_string(o.rt_priority) + ")";
  } else if (error == EBUSY && o.policy == LinuxPolicy::kDeadline) {
    text += " (deadline admission control: the pool's threads x runtime/period exceed the RT bandwidth, "
            "kernel.sched_rt_runtime_us / sched_rt_period_us of each CPU; lower the deadline runtime or "
            "--threads-per-core)";
  }
  return text;
}

std::vector<int> pool_cpus(const KernelThreadOptions& o, const std::vector<int>& worker_cpus) {
  return o.policy == LinuxPolicy::kDeadline ? allowed_cpus() : worker_cpus;
}

int probe_sched_policy(const KernelThreadOptions& o, const std::vector<int>& cpus) {
  int error = 0;
  std::thread probe([&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : cpus) CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
      error = errno;
      return;
    }
    error = apply_sched_policy(o);
  });
  probe.join();
  return error;
}

}  // namespace quanta
