#include "runtime/quantum_monitor.h"

#include <sys/syscall.h>
#include <unistd.h>

#include "preempt/signal_preempt.h"

namespace quanta {

QuantumMonitor::QuantumMonitor(std::span<const WorkerPort> workers, uint64_t after_cycles, Action action)
    : workers_(workers), after_cycles_(after_cycles), action_(action), watched_(workers.size()), pid_(getpid()) {}

void QuantumMonitor::act(std::size_t worker, uint64_t seq) {
  if (action_ == Action::kWriteFlag) {
    __atomic_store_n(workers_[worker].flag, static_cast<uint32_t>(seq), __ATOMIC_RELEASE);
  } else {
    // tgkill, not pthread_kill: the worker is known by its kernel thread id.
    syscall(SYS_tgkill, pid_, workers_[worker].tid, kPreemptSignal);
  }
  ++actions_;
}

void QuantumMonitor::poll(uint64_t now_tsc) {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const WorkerCounters& c = *workers_[i].counters;
    // Sequence, start, sequence again: a quantum that changed in between is skipped and
    // looked at on the next poll.
    const uint64_t seq = c.quantum_seq.load(std::memory_order_acquire);
    const uint64_t start = c.quantum_start_tsc.load(std::memory_order_acquire);
    // Flag and signal end a quantum at its own length (requests and classes may differ);
    // hybrid's backstop is one length for all.
    const uint64_t after = after_cycles_ != 0 ? after_cycles_ : c.quantum_length_cycles.load(std::memory_order_relaxed);
    if (start == 0 || now_tsc < start || now_tsc - start < after) continue;
    Watched& w = watched_[i];
    const bool retry = seq == w.acted_seq;
    if (retry && now_tsc < w.next_try_tsc) continue;
    if (c.quantum_seq.load(std::memory_order_acquire) != seq) continue;
    act(i, seq);
    if (retry) {
      ++retries_;
      w.retry_gap = w.retry_gap > UINT64_MAX / 4 ? w.retry_gap : 2 * w.retry_gap;
    } else {
      w.acted_seq = seq;
      w.retry_gap = after > 0 ? after : 1;
    }
    w.next_try_tsc = now_tsc + w.retry_gap;
  }
}

}  // namespace quanta
