#include "experiment/report.h"

#include "experiment/run_warnings.h"
#include "policy/classed_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace quanta {
namespace {

using nlohmann::json;

json histogram_summary(const Histogram& h, double scale) {
  // `scale` turns the histogram's integer unit into the reported one.
  return json{{"mean", h.mean() * scale},
              {"p50", static_cast<double>(h.value_at_percentile(50)) * scale},
              {"p99", static_cast<double>(h.value_at_percentile(99)) * scale},
              {"p99.9", static_cast<double>(h.value_at_percentile(99.9)) * scale},
              {"max", static_cast<double>(h.max()) * scale}};
}

// What the slowdown of a class divides by: the nominal service time the source gave each
// request, or the CPU time the handler measurably used.
const char* slowdown_basis(const ClassStats& stats) {
  if (stats.slowdown_on_cpu == 0) return "nominal";
  if (stats.slowdown_on_nominal == 0) return "measured_cpu";
  return "mixed";
}

json class_summary(const ClassStats& stats) {
  const uint64_t count = stats.sojourn_ns.count();
  return json{{"count", count},
              {"sojourn_us", histogram_summary(stats.sojourn_ns, 1e-3)},
              {"cpu_us", histogram_summary(stats.cpu_ns, 1e-3)},
              {"slowdown", histogram_summary(stats.slowdown_milli, 1e-3)},
              {"slowdown_basis", slowdown_basis(stats)},
              {"preemptions_per_request", count ? static_cast<double>(stats.preemptions) / count : 0.0},
              // Tiny Quanta's objective is p99.9 slowdown <= 10: the share that missed it.
              {"share_slowdown_over_10",
               count ? static_cast<double>(stats.slowdown_milli.count_above(10'000)) / count : 0.0}};
}

// One entry per workload class, keyed as docs/json-output.md says, with the class's
// label, service time and share beside its statistics; `overall` gets them all merged.
json class_entries(const ClassStatsSet& sets, const Workload& workload, ClassStats& overall) {
  json classes = json::object();
  for (std::size_t i = 0; i < workload.classes().size(); ++i) {
    const ServiceClass& sc = workload.classes()[i];
    json entry = class_summary(sets[i]);
    entry["label"] = sc.label;
    entry["service_us"] = sc.service_us;
    entry["share"] = sc.probability;
    classes[sc.key] = std::move(entry);
    overall.merge(sets[i]);
  }
  return classes;
}

// Whether the run judged its requests against host stalls. A producer that did not leaves
// `untouched` empty or short; one whose subset is larger than the whole is broken. Either
// way the report leaves the untouched figures out rather than show figures that are wrong.
// --class-schedule: each scheduled class's parameters and what it used of the workers'
// CPUs (its share of workers x elapsed time, quanta, how many its budget ended).
json class_schedule_of(const RunResult& r) {
  const std::vector<ClassParams> params = parse_class_schedule(r.config.class_schedule, 1000.0);  // ns
  // The span the usage was counted over: to the last completion, or to the end of the
  // arrivals when the simulator stopped there with requests unfinished (a capped class).
  const double span_s = std::max(r.elapsed_s, r.config.duration_s);
  const double capacity_ns = span_s * 1e9 * std::max(1u, r.config.workers);
  json classes = json::array();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const ClassParams& p = params[i];
    const ClassUsage u = i < r.class_usage.size() ? r.class_usage[i] : ClassUsage{};
    classes.push_back({{"index", i},
                       {"kind", p.latency_critical ? "lc" : "be"},
                       {"priority", p.priority},
                       {"runtime_us", static_cast<double>(p.runtime) / 1e3},
                       {"period_us", static_cast<double>(p.period) / 1e3},
                       {"capped", p.capped},
                       {"budget_share", p.period ? static_cast<double>(p.runtime) / static_cast<double>(p.period) : 0.0},
                       {"quanta", u.quanta},
                       {"budget_ended_quanta", u.budget_ended_quanta},
                       {"throttled_spells", u.throttled_spells},
                       {"admissions_deferred", u.admissions_deferred},
                       {"cpu_ms", u.cpu_ns * 1e-6},
                       {"cpu_share", capacity_ns > 0 ? u.cpu_ns / capacity_ns : 0.0}});
  }
  return json{{"spec", r.config.class_schedule}, {"classes", classes}};
}

bool untouched_available(const RunResult& r, const Workload& workload) {
  const std::size_t n = workload.classes().size();
  if (r.untouched.size() < n || r.classes.size() < n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    if (r.untouched[i].sojourn_ns.count() > r.classes[i].sojourn_ns.count()) return false;
  }
  return true;
}

}  // namespace

json run_to_json(const RunResult& r, const Workload& workload, const char* mode) {
  const RunConfig& c = r.config;
  const double mean_service_us = r.mean_service_us > 0 ? r.mean_service_us : workload.mean_us();
  json config{{"workload", workload.spec()},
              {"load", c.rate_rps ? r.offered_rps * mean_service_us * 1e-6 / c.workers : c.load},
              {"rate_rps", r.offered_rps},
              {"rate_profile", c.rate_profile},
              {"workload_shift", workload.shift_spec()},
              {"class_schedule", c.class_schedule},
              {"workers", c.workers},
              {"quantum_us", c.quantum_us},
              {"local", c.local_policy},
              {"dispatch", c.dispatch_policy},
              {"preempt", c.preempt},
              {"backstop_us", c.backstop_us},
              {"duration_s", c.duration_s},
              {"warmup_frac", c.warmup_frac},
              {"seed", c.seed},
              {"task_slots", c.task_slots},
              {"stack_kib", c.stack_kib},
              {"ring_capacity", c.ring_capacity},
              {"on_full", c.on_full},
              {"dispatcher_works", c.dispatcher_works},
              {"dispatcher_only", c.dispatcher_only},
              {"oversubscribe", c.oversubscribe},
              {"idle", idle_mode_name(c.idle)},
              {"idle_spin_us", c.idle_spin_us},
              {"overrun_report_quanta", c.overrun_report_quanta},
              {"watchdog_ms", c.watchdog_ms},
              {"app", r.app_name},
              {"app_path", c.app_path},
              {"app_config", c.app_config},
              {"max_payload_bytes", c.max_payload_bytes},
              {"max_response_bytes", c.max_response_bytes},
              {"mean_service_us", r.mean_service_us},
              {"mean_service_source", r.mean_service_source}};

  ClassStats overall;
  json classes = class_entries(r.classes, workload, overall);
  const uint64_t measured = overall.sojourn_ns.count();
  json requests{{"generated", r.dispatch.generated},
                {"completed", r.completed},
                {"dropped", r.dispatch.dropped},
                {"measured", measured}};
  // The same statistics over the measured requests no host stall touched, and how many a
  // stall did touch, per class and in all (absent when the run did not judge them).
  json untouched = nullptr;
  if (untouched_available(r, workload)) {
    ClassStats untouched_overall;
    json untouched_classes = class_entries(r.untouched, workload, untouched_overall);
    for (std::size_t i = 0; i < workload.classes().size(); ++i) {
      classes[workload.classes()[i].key]["stall_touched"] =
          r.classes[i].sojourn_ns.count() - r.untouched[i].sojourn_ns.count();
    }
    const uint64_t untouched_measured = untouched_overall.sojourn_ns.count();
    requests["stall_touched"] = measured - untouched_measured;
    untouched = json{{"classes", std::move(untouched_classes)},
                     {"overall", class_summary(untouched_overall)},
                     {"requests", untouched_measured}};
  }
  json overruns = json::array();
  for (const OverrunReport& o : r.overrun_reports) {
    overruns.push_back({{"worker", o.worker},
                        {"request_id", o.request_id},
                        {"elapsed_us", static_cast<double>(o.elapsed_ns) / 1e3},
                        {"where", o.where}});
  }
  json stall_threads = json::array();
  for (const StallSummary& s : r.stalls) {
    stall_threads.push_back({{"thread", s.thread},
                             {"cpu", s.cpu},
                             {"count", s.count},
                             {"total_ms", s.total_ns * 1e-6},
                             {"largest_us", s.largest_ns * 1e-3},
                             {"share", s.share_of(r.elapsed_s)}});
  }
  json report{{"mode", mode},
              {"config", config},
              {"classes", classes},
              {"overall", class_summary(overall)},
              {"requests", requests},
              {"rates",
               {{"offered_rps", r.offered_rps},
                {"achieved_rps", r.elapsed_s > 0 ? static_cast<double>(r.completed) / r.elapsed_s : 0.0}}},
              {"runtime",
               {{"quanta", r.quanta},
                {"full_ring_waits", r.dispatch.full_ring_waits},
                {"late_dispatches", r.dispatch.late_arrivals},
                {"app_errors", r.app_errors},
                {"request_build_failures", r.build_failures},
                {"unbalanced_preempt_disables", r.unbalanced_disables},
                {"monitor_actions", r.monitor_actions},
                {"monitor_retries", r.monitor_retries},
                {"overruns", {{"count", r.overruns}, {"first", overruns}}},
                {"signals", {{"received", r.signals_received}, {"switched", r.signal_switches},
                             {"deferred", r.signals_deferred},
                             {"deferred_in", r.deferred_signal_objects}}},
                {"idle_sleeps", {{"dispatcher", r.dispatcher_sleeps}, {"workers", r.worker_sleeps}}},
                {"central",
                 {{"migrations", r.migrations},
                  {"requeued", r.requeued},
                  {"max_outstanding_per_worker", r.max_outstanding},
                  {"dispatcher_requests", r.dispatcher_requests},
                  {"steals", r.steals}}},
                {"elapsed_s", r.elapsed_s},
                {"cpus", r.cpus},
                {"tsc_ghz", r.tsc_per_ns}}},
              {"stalls", {{"threshold_us", r.stall_threshold_us}, {"threads", stall_threads}}},
              {"warnings", run_warnings(r)}};
  if (!untouched.is_null()) report["untouched"] = std::move(untouched);
  if (!c.class_schedule.empty()) report["class_schedule"] = class_schedule_of(r);
  if (!r.intervals.empty()) {
    json intervals = json::array();
    for (std::size_t i = 0; i < r.intervals.size(); ++i) {
      const IntervalStats& h = r.intervals[i];
      intervals.push_back({{"start_s", static_cast<double>(i) * c.interval_s},
                           {"completed", h.completed},
                           {"p50_us", h.p50_us},
                           {"p99_us", h.p99_us},
                           {"p999_us", h.p999_us}});
    }
    report["intervals"] = {{"interval_s", c.interval_s}, {"sojourn", intervals}};
  }
  if (c.adaptive_quantum) {
    const AdaptiveQuantumParams& a = *c.adaptive_quantum;
    json series = json::array();
    for (const RunResult::QuantumDecision& q : r.quantum_series) {
      series.push_back({{"at_s", q.at_s},
                        {"quantum_us", q.decision.quantum_us},
                        {"load", q.inputs.load},
                        {"queue_per_worker", q.inputs.queue_per_worker},
                        {"p50_us", q.inputs.p50_us},
                        {"p99_us", q.inputs.p99_us},
                        // JSON has no infinity: a period with no spread to fit is null.
                        {"tail_index", std::isfinite(q.decision.tail_index) ? json(q.decision.tail_index) : json()},
                        {"high_load", q.decision.high_load},
                        {"long_queue", q.decision.long_queue},
                        {"heavy_tail", q.decision.heavy_tail},
                        {"low_load", q.decision.low_load}});
    }
    report["adaptive_quantum"] = {{"min_us", a.min_us},       {"max_us", a.max_us}, {"period_s", a.period_s},
                                  {"high_load", a.high_load}, {"low_load", a.low_load}, {"k1_us", a.k1()},
                                  {"k2_us", a.k2()},          {"k3_us", a.k3()},   {"queue_threshold", a.queue_threshold},
                                  {"heavy_tail_alpha", a.heavy_tail_alpha},
                                  // What `load` is: the service that arrived (the simulator
                                  // knows it), or the workers' busy share (the runtime).
                                  {"load_basis", std::string(mode) == "sim" ? "offered" : "busy"},
                                  {"late_periods", r.late_periods},
                                  {"series", series}};
  }
  return report;
}

namespace {

std::string number(double v) {
  char text[32];
  if (v != 0 && (v >= 1e6 || v < 1e-2)) {
    std::snprintf(text, sizeof text, "%.3g", v);
  } else {
    std::snprintf(text, sizeof text, "%.2f", v);
  }
  return text;
}

void row(std::string& out, const std::string& name, const std::vector<std::string>& cells) {
  char head[40];
  std::snprintf(head, sizeof head, "  %-24s", name.c_str());
  out += head;
  for (const auto& cell : cells) {
    char col[40];
    std::snprintf(col, sizeof col, "%22s", cell.c_str());
    out += col;
  }
  out += '\n';
}

// A row's cells, one per run; a run without the figures (nullptr: it has no untouched
// statistics) shows "n/a".
template <typename Cell>
std::vector<std::string> cells_of(const std::vector<const json*>& entries, Cell cell) {
  std::vector<std::string> values;
  for (const json* e : entries) values.push_back(e ? cell(*e) : std::string("n/a"));
  return values;
}

void summary_rows(std::string& out, const std::vector<const json*>& entries) {
  auto cells = [&](const char* group, const char* stat) {
    return cells_of(entries, [&](const json& e) { return number(e[group][stat].get<double>()); });
  };
  row(out, "requests measured",
      cells_of(entries, [](const json& e) { return std::to_string(e["count"].get<uint64_t>()); }));
  for (const char* stat : {"p50", "p99", "p99.9", "max"}) row(out, std::string("slowdown ") + stat, cells("slowdown", stat));
  for (const char* stat : {"p50", "p99", "p99.9"}) row(out, std::string("sojourn us ") + stat, cells("sojourn_us", stat));
  row(out, "cpu us p50", cells("cpu_us", "p50"));
  row(out, "slowdown divides by",
      cells_of(entries, [](const json& e) { return e["slowdown_basis"].get<std::string>(); }));
  row(out, "slowdown > 10",
      cells_of(entries, [](const json& e) { return number(e["share_slowdown_over_10"].get<double>() * 100) + "%"; }));
  row(out, "preemptions/request",
      cells_of(entries, [](const json& e) { return number(e["preemptions_per_request"].get<double>()); }));
}

std::string class_title(const std::string& key, const json& entry) {
  char title[128];
  const std::string label = entry["label"].get<std::string>();
  if (label == key) {
    // An app's own class: named, with no nominal time to show.
    std::snprintf(title, sizeof title, "class %s (%.1f%%)", label.c_str(), entry["share"].get<double>() * 100);
  } else {
    std::snprintf(title, sizeof title, "class %s (%s us, %.1f%%)", label.c_str(), key.c_str(),
                  entry["share"].get<double>() * 100);
  }
  return title;
}

// The untouched statistics of a run, or nullptr if it has none (run_to_json
// leaves them out when the run did not judge its requests against host stalls).
const json* untouched_of(const json& run) {
  const auto it = run.find("untouched");
  return it == run.end() || it->is_null() ? nullptr : &*it;
}

// After the raw figures and the host stalls: how many requests a stall touched, then the
// per-class and overall rows again over the requests none touched. When no stall touched
// any request those rows would repeat the raw ones, so the count alone says so.
void untouched_rows(std::string& out, const std::vector<json>& runs) {
  std::vector<const json*> sets;
  for (const json& run : runs) sets.push_back(untouched_of(run));
  if (std::none_of(sets.begin(), sets.end(), [](const json* u) { return u != nullptr; })) return;
  std::vector<std::string> touched;
  bool any_touched = false;
  for (const json& run : runs) {
    const json& requests = run["requests"];
    if (!requests.contains("stall_touched")) {
      touched.push_back("n/a");
      continue;
    }
    const uint64_t count = requests["stall_touched"].get<uint64_t>();
    any_touched = any_touched || count > 0;
    const uint64_t measured = requests["measured"].get<uint64_t>();
    touched.push_back(std::to_string(count) + " (" +
                      number(measured ? 100.0 * static_cast<double>(count) / static_cast<double>(measured) : 0.0) +
                      "%)");
  }
  row(out, "requests a stall touched", touched);
  if (!any_touched) return;
  out += "untouched requests (no host stall touched them)\n";
  for (const auto& [key, entry] : runs.front()["classes"].items()) {
    out += "untouched " + class_title(key, entry) + "\n";
    std::vector<const json*> entries;
    for (const json* u : sets) entries.push_back(u ? &(*u)["classes"][key] : nullptr);
    summary_rows(out, entries);
  }
  out += "untouched overall\n";
  std::vector<const json*> overall;
  for (const json* u : sets) overall.push_back(u ? &(*u)["overall"] : nullptr);
  summary_rows(out, overall);
}

}  // namespace

std::string runs_to_text(const std::vector<json>& runs) {
  std::string out;
  if (runs.empty()) return out;
  const json& first = runs.front()["config"];
  char head[256];
  // number(): a load of 1e300 (the simulator takes it) is not printed with 300 digits.
  std::snprintf(head, sizeof head, "%s  workload %s  load %s (%s rps offered)  workers %d  quantum %g us  %g s\n",
                runs.front()["mode"].get<std::string>().c_str(), first["workload"].get<std::string>().c_str(),
                number(first["load"].get<double>()).c_str(), number(first["rate_rps"].get<double>()).c_str(),
                first["workers"].get<int>(), first["quantum_us"].get<double>(), first["duration_s"].get<double>());
  out += head;
  std::vector<std::string> names;
  for (const json& run : runs) {
    const json& c = run["config"];
    names.push_back(c["local"].get<std::string>() + "/" + c["dispatch"].get<std::string>() + "/" +
                    c["preempt"].get<std::string>());
  }
  row(out, "", names);
  for (const auto& [key, entry] : runs.front()["classes"].items()) {
    out += class_title(key, entry) + "\n";
    std::vector<const json*> entries;
    for (const json& run : runs) entries.push_back(&run["classes"][key]);
    summary_rows(out, entries);
  }
  out += "overall\n";
  std::vector<const json*> overall;
  for (const json& run : runs) overall.push_back(&run["overall"]);
  summary_rows(out, overall);
  std::vector<std::string> achieved, dropped, generated;
  for (const json& run : runs) {
    achieved.push_back(number(run["rates"]["achieved_rps"].get<double>()));
    dropped.push_back(std::to_string(run["requests"]["dropped"].get<uint64_t>()));
    generated.push_back(std::to_string(run["requests"]["generated"].get<uint64_t>()));
  }
  row(out, "achieved rps", achieved);
  row(out, "generated", generated);
  row(out, "dropped", dropped);
  // --class-schedule: each class's share of the workers' CPU time, as measured.
  if (runs.front().contains("class_schedule")) {
    for (std::size_t i = 0; i < runs.front()["class_schedule"]["classes"].size(); ++i) {
      std::vector<std::string> shares;
      std::string kind;
      for (const json& run : runs) {
        const json& entry = run["class_schedule"]["classes"][i];
        kind = entry["kind"].get<std::string>();
        shares.push_back(number(entry["cpu_share"].get<double>()) + " (" +
                         std::to_string(entry["budget_ended_quanta"].get<uint64_t>()) + ")");
      }
      row(out, "class " + std::to_string(i) + " " + kind + " cpu (cut)", shares);
    }
  }
  // Host stalls the runtime's threads noticed, summed over them; per thread in the JSON.
  std::vector<std::string> stalls, stalled_ms;
  for (const json& run : runs) {
    uint64_t count = 0;
    double total_ms = 0, largest_us = 0;
    for (const json& t : run.value("stalls", json::object()).value("threads", json::array())) {
      count += t["count"].get<uint64_t>();
      total_ms += t["total_ms"].get<double>();
      largest_us = std::max(largest_us, t["largest_us"].get<double>());
    }
    stalls.push_back(std::to_string(count));
    stalled_ms.push_back(number(total_ms) + " (" + number(largest_us / 1000) + ")");
  }
  row(out, "host stalls seen", stalls);
  row(out, "stalled ms (largest)", stalled_ms);
  untouched_rows(out, runs);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const json& w : runs[i].value("warnings", json::array())) {
      out += "warning (" + names[i] + "): " + w["message"].get<std::string>() + "\n";
    }
  }
  return out;
}

bool any_warnings(const std::vector<json>& runs) {
  for (const json& run : runs) {
    if (!run.value("warnings", json::array()).empty()) return true;
  }
  return false;
}

}  // namespace quanta
