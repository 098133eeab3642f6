#include "runtime/quantum_monitor.h"

#include <sys/syscall.h>
#include <unistd.h>

#include "preempt/signal_preempt.h"

namespace quanta {

QuantumMonitor::QuantumMonitor(std::span<const WorkerPort> workers, uint64_t after_cycles, Action action)
    : workers_(workers), after_cycles_(after_cycles), action_(action), acted_seq_(workers.size(), 0), pid_(getpid()) {}

void QuantumMonitor::poll(uint64_t now_tsc) {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const WorkerCounters& c = *workers_[i].counters;
    // Sequence, start, sequence again: a quantum that changed in between is skipped and
    // looked at on the next poll.
    const uint64_t seq = c.quantum_seq.load(std::memory_order_acquire);
    const uint64_t start = c.quantum_start_tsc.load(std::memory_order_acquire);
    if (start == 0 || seq == acted_seq_[i] || now_tsc < start || now_tsc - start < after_cycles_) continue;
    if (c.quantum_seq.load(std::memory_order_acquire) != seq) continue;
    if (action_ == Action::kWriteFlag) {
      __atomic_store_n(&workers_[i].flag->word, static_cast<uint32_t>(seq), __ATOMIC_RELEASE);
    } else {
      // tgkill, not pthread_kill: the worker is known by its kernel thread id.
      syscall(SYS_tgkill, pid_, workers_[i].tid, kPreemptSignal);
    }
    acted_seq_[i] = seq;
    ++actions_;
  }
}

}  // namespace quanta
