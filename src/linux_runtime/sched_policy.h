// Puts the calling thread into a Linux scheduling class: SCHED_OTHER (nothing to do),
// SCHED_RR / SCHED_FIFO at a fixed RT priority, or SCHED_DEADLINE with a runtime/period
// reservation (sched_setattr: glibc has no wrapper).
#pragma once

#include <string>
#include <vector>

#include "linux_runtime/kernel_thread_options.h"

namespace quanta {

// Returns 0 or the errno of the failing call (EPERM without CAP_SYS_NICE or an RT
// budget; EBUSY when deadline admission control refuses the reservation; EPERM for
// deadline when the thread's affinity is narrower than its root domain).
int apply_sched_policy(const KernelThreadOptions& options);

// Why `error` happened for `options`, in words a user can act on; `option` is what the
// user set the class with (--linux-policy, or --class-sched and the class).
std::string sched_policy_error(const KernelThreadOptions& options, int error,
                               const std::string& option = "--linux-policy");

// The CPUs the pool's threads may run on. SCHED_DEADLINE refuses (EPERM) a thread whose
// affinity is narrower than its root domain, and refuses (EBUSY) narrowing it later, so
// deadline threads keep the whole process mask, dispatcher CPU included; the others get
// the worker CPUs.
std::vector<int> pool_cpus(const KernelThreadOptions& options, const std::vector<int>& worker_cpus);

// Tries the policy on a short-lived thread restricted to `cpus`: 0 if permitted here,
// else the errno. Changes nothing in the calling thread.
int probe_sched_policy(const KernelThreadOptions& options, const std::vector<int>& cpus);

}  // namespace quanta
