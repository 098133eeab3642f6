#include "experiment/run_warnings.h"

#include <cstdio>
#include <string>

#include "stats/histogram.h"

namespace quanta {
namespace {

void add(nlohmann::json& list, const char* code, const std::string& message) {
  list.push_back({{"code", code}, {"message", message}});
}

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", share * 100);
  return text;
}

}  // namespace

nlohmann::json run_warnings(const RunResult& r) {
  nlohmann::json list = nlohmann::json::array();
  const DispatchTotals& d = r.dispatch;
  if (d.generated > 0) {
    const double late = static_cast<double>(d.late_arrivals) / static_cast<double>(d.generated);
    if (late > kLateDispatchWarnShare) {
      add(list, "late_dispatches",
          percent(late) + " of the requests were dispatched more than 1 us after their intended arrival (over " +
              percent(kLateDispatchWarnShare) +
              "): the dispatcher fell behind (too high a rate for it, or the host took its CPU), and their latency "
              "includes the delay");
    }
  }
  if (d.full_ring_waits > 0) {
    add(list, "full_ring_waits",
        "the dispatcher waited " + std::to_string(d.full_ring_waits) +
            " times for room in a worker's ring or a task slot: arrivals behind it were delayed (--on-full drop "
            "drops them instead, and counts them)");
  }
  uint64_t overflow = 0;
  for (const ClassStats& c : r.classes) overflow += c.sojourn_ns.overflow();
  if (overflow > 0) {
    add(list, "histogram_overflow",
        std::to_string(overflow) + " requests took longer than the histograms' range (" +
            std::to_string(Histogram::kMaxValue / 1'000'000'000) +
            " s): a percentile that falls on them reads the range's end, not their latency");
  }
  const unsigned threads = r.config.workers + 1;
  if (r.cpus > 0 && threads > r.cpus) {
    add(list, "shared_cpus",
        std::to_string(r.config.workers) + " workers and the dispatcher ran on " + std::to_string(r.cpus) +
            " CPUs: threads took turns on a CPU, so latencies show the kernel's scheduling as much as quanta's");
  }
  for (const StallSummary& s : r.stalls) {
    const double share = s.share_of(r.elapsed_s);
    if (share <= kStallWarnShare) continue;
    char text[96];
    std::snprintf(text, sizeof text, "%.1f ms in all, the largest %.2f ms", s.total_ns * 1e-6, s.largest_ns * 1e-6);
    add(list, "host_stalls",
        "the " + s.thread + "'s CPU" + (s.cpu >= 0 ? " " + std::to_string(s.cpu) : std::string(" (simulated)")) +
            " was taken away for " + percent(share) +
            " of the run in " + std::to_string(s.count) + " stalls (" + text +
            "): requests in the system meanwhile waited, so the tail percentiles show the host as much as quanta");
  }
  if (r.overruns > 0) {
    std::string first;
    if (!r.overrun_reports.empty()) {
      const OverrunReport& o = r.overrun_reports.front();
      first = ": the first, request " + std::to_string(o.request_id) + " on worker " + std::to_string(o.worker) +
              ", was " + (o.where.empty() ? std::string("somewhere unknown") : "at " + o.where);
    }
    add(list, "overruns",
        std::to_string(r.overruns) + " quanta went on past " + std::to_string(static_cast<uint64_t>(
                                                                   r.config.overrun_report_quanta)) +
            " quanta without reaching a preemption point" + first +
            " (runtime.overruns in the JSON lists the first few): code without probes (or with preemption "
            "disabled) is not preempted there, and a stall of the host looks the same");
  }
  if (r.build_failures > 0) {
    add(list, "request_build_failures",
        "the app's make_request failed for " + std::to_string(r.build_failures) +
            " arrivals; they were skipped and are in no count (raise --max-payload-bytes if they did not fit)");
  }
  return list;
}

}  // namespace quanta
