#include "runtime/flag_monitor.h"

namespace quanta {

FlagMonitor::FlagMonitor(std::span<const WorkerPort> workers, uint64_t quantum_cycles)
    : workers_(workers), quantum_cycles_(quantum_cycles), flagged_seq_(workers.size(), 0) {}

void FlagMonitor::poll(uint64_t now_tsc) {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const WorkerCounters& c = *workers_[i].counters;
    // Sequence, start, sequence again: a quantum that changed in between is skipped and
    // looked at on the next poll.
    const uint64_t seq = c.quantum_seq.load(std::memory_order_acquire);
    const uint64_t start = c.quantum_start_tsc.load(std::memory_order_acquire);
    if (start == 0 || seq == flagged_seq_[i] || now_tsc - start < quantum_cycles_ || now_tsc < start) continue;
    if (c.quantum_seq.load(std::memory_order_acquire) != seq) continue;
    __atomic_store_n(&workers_[i].flag->word, static_cast<uint32_t>(seq), __ATOMIC_RELEASE);
    flagged_seq_[i] = seq;
    ++flags_written_;
  }
}

}  // namespace quanta
