#include "runtime/quantum_watchdog.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "core/tsc.h"
#include "runtime/code_address.h"
#include "preempt/signal_preempt.h"

namespace quanta {
namespace {

std::string format_ms(double ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms", ns / 1e6);
  return text;
}

std::string where_clause(const OverrunReport& r) {
  if (r.pc == 0) return "where unknown";
  return "at " + r.where;
}

}  // namespace

std::string describe_overrun(const OverrunReport& r) {
  return "request " + std::to_string(r.request_id) + " on worker " + std::to_string(r.worker) + " ran " +
         format_ms(static_cast<double>(r.elapsed_ns)) +
         " in one quantum, " + where_clause(r) + ": it reached no preemption point, or the host took its CPU";
}

QuantumWatchdog::QuantumWatchdog(std::span<const WorkerPort> workers, WatchdogConfig config)
    : workers_(workers), config_(std::move(config)), watched_(workers.size()), pid_(getpid()) {
  // Look a few times per threshold: a report comes at most a quarter late, and the
  // dispatcher reads the workers' lines only that often.
  uint64_t shortest = UINT64_MAX;
  if (config_.report_after_cycles > 0) shortest = config_.report_after_cycles;
  if (config_.stop_after_cycles > 0) shortest = std::min(shortest, config_.stop_after_cycles);
  look_gap_cycles_ = shortest == UINT64_MAX ? UINT64_MAX : std::max<uint64_t>(shortest / 4, ns_to_cycles(10'000));
  // A busy host can keep the worker's CPU for tens of ms, and the handler runs only when
  // the worker does: a report waits that long for its sample before it goes without one.
  sample_wait_cycles_ = ns_to_cycles(50'000'000);
  next_look_tsc_ = shortest == UINT64_MAX ? UINT64_MAX : 0;
  reports_.reserve(kReportsKept);
}

OverrunReport QuantumWatchdog::located(std::size_t worker) const {
  OverrunReport r;
  r.worker = static_cast<int>(worker);
  const WorkerCounters& c = *workers_[worker].counters;
  if (c.samples.load(std::memory_order_acquire) == watched_[worker].samples_before) return r;
  r.pc = c.sampled_pc.load(std::memory_order_relaxed);
  if (r.pc != 0) r.where = describe_code_address(r.pc);
  return r;
}

void QuantumWatchdog::report(std::size_t worker, uint64_t request_id, uint64_t elapsed_cycles) {
  ++overruns_;
  OverrunReport r = located(worker);
  r.request_id = request_id;
  r.elapsed_ns = static_cast<uint64_t>(cycles_to_ns(elapsed_cycles));
  if (config_.on_overrun) config_.on_overrun(r);
  if (reports_.size() < kReportsKept) reports_.push_back(std::move(r));
}

std::string QuantumWatchdog::stuck_message(std::size_t worker, uint64_t request_id, uint64_t elapsed_cycles) const {
  const OverrunReport r = located(worker);
  std::string m = "worker " + std::to_string(worker) + " has run request " + std::to_string(request_id) + " for " +
                  format_ms(cycles_to_ns(elapsed_cycles)) + " in one quantum, " + where_clause(r) + "; ending the run. So far:";
  uint64_t finished = 0;
  uint64_t quanta = 0;
  std::string per_worker;
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const uint64_t f = workers_[i].counters->finished.load(std::memory_order_acquire);
    finished += f;
    quanta += workers_[i].counters->quantum_seq.load(std::memory_order_relaxed);
    per_worker += (i ? ", " : "") + std::string("worker ") + std::to_string(i) + ": " + std::to_string(f);
  }
  m += " " + std::to_string(finished) + " requests finished (" + per_worker + "), " + std::to_string(quanta) +
       " quanta started, " + std::to_string(overruns_) + " overrun reports";
  return m;
}

void QuantumWatchdog::look(uint64_t now_tsc) {
  next_look_tsc_ = now_tsc + look_gap_cycles_;
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const WorkerCounters& c = *workers_[i].counters;
    const uint64_t seq = c.quantum_seq.load(std::memory_order_acquire);
    const uint64_t start = c.quantum_start_tsc.load(std::memory_order_acquire);
    const uint64_t request_id = c.running_request_id.load(std::memory_order_relaxed);
    const bool open = start != 0 && now_tsc >= start && c.quantum_seq.load(std::memory_order_acquire) == seq;
    Watched& w = watched_[i];
    // A quantum asked about that ended before the answer came (or the answer never came)
    // still overran: reported with what is known.
    const bool awaiting = w.asked_seq != 0 && w.asked_seq != w.reported_seq;
    if (awaiting && (!open || seq != w.asked_seq)) {
      w.reported_seq = w.asked_seq;
      if (config_.report_after_cycles > 0 && w.asked_elapsed >= config_.report_after_cycles) {
        report(i, w.asked_request, w.asked_elapsed);
      }
    }
    if (!open) continue;
    const uint64_t elapsed = now_tsc - start;
    const bool over_report = config_.report_after_cycles > 0 && elapsed >= config_.report_after_cycles;
    const bool over_stop = config_.stop_after_cycles > 0 && elapsed >= config_.stop_after_cycles;
    if (!over_report && !over_stop) continue;
    if (config_.sample_pc && w.asked_seq != seq) {
      // Ask where the task is; report on a later look, once the handler answered.
      w.samples_before = c.samples.load(std::memory_order_acquire);
      if (request_pc_sample(pid_, workers_[i].tid)) {
        w.asked_seq = seq;
        w.asked_tsc = now_tsc;
        w.asked_request = request_id;
        w.asked_elapsed = elapsed;
        next_look_tsc_ = std::min(next_look_tsc_, now_tsc + ns_to_cycles(10'000));
        continue;
      }
    }
    if (config_.sample_pc && w.asked_seq == seq && c.samples.load(std::memory_order_acquire) == w.samples_before &&
        now_tsc - w.asked_tsc < sample_wait_cycles_) {
      next_look_tsc_ = std::min(next_look_tsc_, now_tsc + ns_to_cycles(10'000));
      continue;
    }
    if (over_report && w.reported_seq != seq) {
      w.reported_seq = seq;
      report(i, request_id, elapsed);
    }
    if (over_stop && w.stuck_seq != seq) {
      w.stuck_seq = seq;
      if (config_.on_stuck) config_.on_stuck(stuck_message(i, request_id, elapsed));
    }
  }
}

}  // namespace quanta
