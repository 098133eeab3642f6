#include "load/latency_log.h"

#include <time.h>

#include <cstdio>

#include "core/tsc.h"
#include "load/hdr_histogram_log.h"
#include "load/load_stats.h"
#include "stats/histogram.h"

namespace quanta {

void for_each_latency_interval(const LoadRunOutcome& o, const std::vector<Arrival>& schedule,
                               const std::function<void(const LatencyInterval&)>& emit) {
  LatencyInterval current;
  // The schedule is in intended-time order, so each interval's requests are consecutive.
  for (std::size_t id = 0; id < schedule.size(); ++id) {
    const Arrival& a = schedule[id];
    const uint64_t index = a.arrival_ns / kLatencyIntervalNs;
    while (current.index < index) {
      emit(current);
      const uint64_t next = current.index + 1;
      current = LatencyInterval{};
      current.index = next;
    }
    const RequestSlot& slot = o.table[id];
    if (slot.build_failed) continue;
    ++current.sent;
    switch (slot.outcome) {
      case Outcome::kOk: current.latencies_ns.push_back(latency_ns_of(o, a, slot)); break;
      case Outcome::kOverloaded: ++current.overloaded; break;
      case Outcome::kBadRequest: ++current.bad_request; break;
      default: ++current.dropped; break;  // a finished run leaves nothing in flight
    }
  }
  if (!schedule.empty()) emit(current);
}

namespace {

// Wall-clock time of a cycle-counter reading in the past, in seconds since the epoch.
double epoch_s_of(uint64_t tsc) {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  const uint64_t now_tsc = read_tsc();
  const double ago_s = now_tsc > tsc ? cycles_to_ns(now_tsc - tsc) * 1e-9 : 0.0;
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9 - ago_s;
}

}  // namespace

std::string latency_interval_hdr_log(const LoadRunOutcome& o, const std::vector<Arrival>& schedule) {
  // 1 ns to 1 h at 3 significant digits: the longest --timeout-ms is an hour, and an
  // answered request can outlast its timeout only by its send's lateness and the time to
  // the next sweep. Whatever still lies above is counted as 1 h (HdrHistogram refuses it).
  constexpr int64_t kHighestNs = 3'600'000'000'000;
  const std::vector<std::string> comments = {
      "quanta load latency log: one HdrHistogram per interval of 1 s of intended send time; values are latencies in "
      "nanoseconds from a request's intended send time to its reply (plotters: unit ratio 1e6 for milliseconds); "
      "Interval_Max is in milliseconds",
      "Every answered request is here, warm-up included; timestamps are seconds since StartTime, the send "
      "schedule's start",
      "Left out: dropped requests (no reply within --timeout-ms, or the send failed: infinite latency, which no "
      "histogram holds) and OVERLOADED or BAD_REQUEST replies; the JSON report counts them (client.dropped, each "
      "class's dropped) and --latency-log-format csv counts them per second",
      "Values above 1 h (3600000000000 ns) would be counted as 1 h"};
  HdrHistogramLogWriter log(comments, epoch_s_of(o.start_tsc), 1e6);
  HdrHistogram h(1, kHighestNs, 3);
  for_each_latency_interval(o, schedule, [&](const LatencyInterval& interval) {
    h.clear();
    for (uint64_t ns : interval.latencies_ns) h.record(static_cast<int64_t>(ns));
    log.interval(static_cast<double>(interval.index * kLatencyIntervalNs) * 1e-9, kLatencyIntervalNs * 1e-9, h);
  });
  return log.text();
}

namespace {

std::string percentile_text(const Histogram& h, uint64_t dropped, double p) {
  const std::optional<double> v = percentile_with_drops(h, dropped, p);
  if (!v) return "inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", *v * 1e-3);
  return text;
}

}  // namespace

std::string latency_interval_csv(const LoadRunOutcome& o, const std::vector<Arrival>& schedule) {
  std::string out =
      "# quanta load latency intervals: one row per second of intended send time; latency in us from the intended "
      "send time to the reply; dropped requests (no reply within the timeout) rank above every answered one, so a "
      "percentile among them reads inf\n"
      "interval_start_s,interval_s,sent,answered,dropped,overloaded,bad_request,p50_us,p90_us,p99_us,p99.9_us,max_us\n";
  Histogram h;
  for_each_latency_interval(o, schedule, [&](const LatencyInterval& interval) {
    if (interval.sent == 0) return;
    h.clear();
    for (uint64_t ns : interval.latencies_ns) h.record(ns);
    char line[160];
    std::snprintf(line, sizeof line, "%llu,1,%llu,%llu,%llu,%llu,%llu,",
                  static_cast<unsigned long long>(interval.index), static_cast<unsigned long long>(interval.sent),
                  static_cast<unsigned long long>(h.count()), static_cast<unsigned long long>(interval.dropped),
                  static_cast<unsigned long long>(interval.overloaded),
                  static_cast<unsigned long long>(interval.bad_request));
    out += line;
    for (double p : {50.0, 90.0, 99.0, 99.9, 100.0}) {
      out += percentile_text(h, interval.dropped, p);
      out += p == 100.0 ? "\n" : ",";
    }
  });
  return out;
}

}  // namespace quanta
