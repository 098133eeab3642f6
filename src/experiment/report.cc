#include "experiment/report.h"

#include "experiment/run_warnings.h"

#include <algorithm>
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
              // The papers' objective is p99.9 slowdown <= 10: the share that missed it.
              {"share_slowdown_over_10",
               count ? static_cast<double>(stats.slowdown_milli.count_above(10'000)) / count : 0.0}};
}

}  // namespace

json run_to_json(const RunResult& r, const Workload& workload, const char* mode) {
  const RunConfig& c = r.config;
  const double mean_service_us = r.mean_service_us > 0 ? r.mean_service_us : workload.mean_us();
  json config{{"workload", workload.spec()},
              {"load", c.rate_rps ? r.offered_rps * mean_service_us * 1e-6 / c.workers : c.load},
              {"rate_rps", r.offered_rps},
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
              {"oversubscribe", c.oversubscribe},
              {"app", r.app_name},
              {"app_path", c.app_path},
              {"app_config", c.app_config},
              {"max_payload_bytes", c.max_payload_bytes},
              {"max_response_bytes", c.max_response_bytes},
              {"mean_service_us", r.mean_service_us},
              {"mean_service_source", r.mean_service_source}};

  json classes = json::object();
  ClassStats overall;
  for (std::size_t i = 0; i < workload.classes().size(); ++i) {
    const ServiceClass& sc = workload.classes()[i];
    const ClassStats& stats = r.classes[i];
    json entry = class_summary(stats);
    entry["label"] = sc.label;
    entry["service_us"] = sc.service_us;
    entry["share"] = sc.probability;
    classes[sc.key] = std::move(entry);
    overall.merge(stats);
  }
  const uint64_t measured = overall.sojourn_ns.count();
  json stall_threads = json::array();
  for (const StallSummary& s : r.stalls) {
    stall_threads.push_back({{"thread", s.thread},
                             {"cpu", s.cpu},
                             {"count", s.count},
                             {"total_ms", s.total_ns * 1e-6},
                             {"largest_us", s.largest_ns * 1e-3},
                             {"share", s.share_of(r.elapsed_s)}});
  }
  return json{{"mode", mode},
              {"config", config},
              {"classes", classes},
              {"overall", class_summary(overall)},
              {"requests",
               {{"generated", r.dispatch.generated},
                {"completed", r.completed},
                {"dropped", r.dispatch.dropped},
                {"measured", measured}}},
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
                {"signals", {{"received", r.signals_received}, {"switched", r.signal_switches},
                             {"deferred", r.signals_deferred}}},
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

void summary_rows(std::string& out, const std::vector<const json*>& entries) {
  auto cells = [&](const char* group, const char* stat) {
    std::vector<std::string> values;
    for (const json* e : entries) values.push_back(number((*e)[group][stat].get<double>()));
    return values;
  };
  std::vector<std::string> counts;
  for (const json* e : entries) counts.push_back(std::to_string((*e)["count"].get<uint64_t>()));
  row(out, "requests measured", counts);
  for (const char* stat : {"p50", "p99", "p99.9", "max"}) row(out, std::string("slowdown ") + stat, cells("slowdown", stat));
  for (const char* stat : {"p50", "p99", "p99.9"}) row(out, std::string("sojourn us ") + stat, cells("sojourn_us", stat));
  row(out, "cpu us p50", cells("cpu_us", "p50"));
  std::vector<std::string> basis;
  for (const json* e : entries) basis.push_back((*e)["slowdown_basis"].get<std::string>());
  row(out, "slowdown divides by", basis);
  std::vector<std::string> missed;
  for (const json* e : entries) missed.push_back(number((*e)["share_slowdown_over_10"].get<double>() * 100) + "%");
  row(out, "slowdown > 10", missed);
  std::vector<std::string> preemptions;
  for (const json* e : entries) preemptions.push_back(number((*e)["preemptions_per_request"].get<double>()));
  row(out, "preemptions/request", preemptions);
}

}  // namespace

std::string runs_to_text(const std::vector<json>& runs) {
  std::string out;
  if (runs.empty()) return out;
  const json& first = runs.front()["config"];
  char head[256];
  std::snprintf(head, sizeof head, "%s  workload %s  load %.2f (%s rps offered)  workers %d  quantum %g us  %g s\n",
                runs.front()["mode"].get<std::string>().c_str(), first["workload"].get<std::string>().c_str(),
                first["load"].get<double>(), number(first["rate_rps"].get<double>()).c_str(),
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
    char title[128];
    const std::string label = entry["label"].get<std::string>();
    if (label == key) {
      // An app's own class: named, with no nominal time to show.
      std::snprintf(title, sizeof title, "class %s (%.1f%%)\n", label.c_str(), entry["share"].get<double>() * 100);
    } else {
      std::snprintf(title, sizeof title, "class %s (%s us, %.1f%%)\n", label.c_str(), key.c_str(),
                    entry["share"].get<double>() * 100);
    }
    out += title;
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
