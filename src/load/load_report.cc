#include "load/load_report.h"

#include <cstdio>

#include "core/tsc.h"

namespace quanta {
namespace {

using nlohmann::json;

// A percentile in the reported unit, or the string "inf" when it falls among the dropped
// requests (JSON has no infinity; Python's float("inf") reads the string).
json percentile_value(const Histogram& h, uint64_t dropped, double p, double scale) {
  const std::optional<double> v = percentile_with_drops(h, dropped, p);
  if (!v) return "inf";
  return *v * scale;
}

json summary(const Histogram& h, uint64_t dropped, double scale) {
  return json{{"mean", dropped > 0 ? json("inf") : json(h.mean() * scale)},
              {"p50", percentile_value(h, dropped, 50, scale)},
              {"p99", percentile_value(h, dropped, 99, scale)},
              {"p99.9", percentile_value(h, dropped, 99.9, scale)},
              {"max", dropped > 0 ? json("inf") : json(static_cast<double>(h.max()) * scale)}};
}

json class_summary(const LoadClassStats& c, bool slowdown_known) {
  const uint64_t timed = c.latency_ns.count() + c.dropped;
  json entry{{"count", c.latency_ns.count()},
             {"sent", c.sent},
             {"dropped", c.dropped},
             {"overloaded", c.overloaded},
             {"bad_request", c.bad_request},
             {"request_build_failures", c.build_failures},
             {"sojourn_us", summary(c.latency_ns, c.dropped, 1e-3)}};
  if (slowdown_known) {
    entry["slowdown"] = summary(c.slowdown_milli, c.dropped, 1e-3);
    entry["slowdown_basis"] = "nominal";
    // A dropped request missed every objective.
    entry["share_slowdown_over_10"] =
        timed ? static_cast<double>(c.slowdown_milli.count_above(10'000) + c.dropped) / static_cast<double>(timed)
              : 0.0;
  } else {
    entry["slowdown"] = nullptr;
    entry["slowdown_basis"] = "none";
    entry["share_slowdown_over_10"] = nullptr;
  }
  return entry;
}

}  // namespace

json load_to_json(const LoadReportConfig& c, const Workload& workload, const LoadRunOutcome& o, const LoadStats& stats) {
  const bool slowdown_known = workload.service_known() && !workload.app_defined();
  json config{{"target", c.target},
              {"connections", c.connections},
              {"workload", workload.spec()},
              {"arrivals", c.arrivals},
              {"rate_profile", c.rate_profile},
              {"workload_shift", workload.shift_spec()},
              {"rate_rps", c.rate_rps},
              {"load", c.load > 0 ? json(c.load) : json(nullptr)},
              {"mean_service_us", c.mean_service_us},
              {"duration_s", c.duration_s},
              {"warmup_frac", c.warmup_frac},
              {"seed", c.seed},
              {"timeout_ms", c.timeout_ms},
              {"cpu", c.cpu},
              {"wait", c.wait},
              {"app", c.app_name},
              {"app_path", c.app_path},
              {"app_config", c.app_config},
              {"latency_log", c.latency_log},
              {"latency_log_format", c.latency_log_format.empty() ? json(nullptr) : json(c.latency_log_format)}};
  json classes = json::object();
  LoadClassStats overall;
  for (std::size_t i = 0; i < workload.classes().size(); ++i) {
    const ServiceClass& sc = workload.classes()[i];
    json entry = class_summary(stats.classes[i], slowdown_known);
    entry["label"] = sc.label;
    entry["service_us"] = sc.service_us;
    entry["share"] = sc.probability;
    classes[sc.key] = std::move(entry);
    overall.merge(stats.classes[i]);
  }
  const InflightTable& t = o.table;
  json client{{"scheduled", t.size()},
              {"sent", o.sent},
              {"answered", t.answered()},
              {"dropped", t.dropped()},
              {"overloaded", t.overloaded()},
              {"bad_request", t.bad_request()},
              {"send_failures", o.send_failures},
              {"request_build_failures", o.build_failures},
              {"late_sends", o.late_sends},
              {"worst_send_lag_us", cycles_to_ns(o.worst_send_lag_cycles) * 1e-3},
              {"late_replies", o.anomalies.late},
              {"unknown_replies", o.anomalies.unknown},
              {"out_of_order_replies", o.anomalies.out_of_order},
              {"malformed_replies", o.anomalies.malformed},
              {"receive_errors", o.receive_errors},
              {"closed_connections", o.closed_connections},
              {"elapsed_s", cycles_to_ns(o.end_tsc - o.start_tsc) * 1e-9},
              {"tsc_ghz", tsc_per_ns()}};
  json warnings = json::array();
  auto warn = [&](const char* code, const std::string& message) {
    warnings.push_back({{"code", code}, {"message", message}});
  };
  if (o.sent > 0 && o.late_sends * 100 > o.sent) {
    warn("late_sends", std::to_string(o.late_sends) + " of " + std::to_string(o.sent) +
                           " requests left more than 1 us after their intended time: the client could not keep the "
                           "schedule, and its latencies include its own lateness");
  }
  if (t.dropped() > 0) {
    warn("dropped", std::to_string(t.dropped()) + " requests had no reply within " + std::to_string(c.timeout_ms) +
                        " ms (or could not be sent): their latency counts as infinite");
  }
  if (o.anomalies.out_of_order > 0 || o.anomalies.malformed > 0 || o.anomalies.unknown > 0) {
    warn("protocol", "the server broke the wire protocol: " + std::to_string(o.anomalies.out_of_order) +
                         " replies out of order, " + std::to_string(o.anomalies.malformed) + " malformed, " +
                         std::to_string(o.anomalies.unknown) + " for no request in flight");
  }
  const uint64_t measured = overall.latency_ns.count();
  return json{{"mode", "load"},
              {"config", config},
              {"classes", classes},
              {"overall", class_summary(overall, slowdown_known)},
              {"requests",
               {{"generated", t.size()}, {"completed", t.answered()}, {"dropped", t.dropped()}, {"measured", measured}}},
              {"rates",
               {{"offered_rps", c.rate_rps},
                {"achieved_rps",
                 stats.until_last_reply_s > 0 ? static_cast<double>(t.answered()) / stats.until_last_reply_s : 0.0}}},
              {"client", client},
              {"warnings", warnings}};
}

namespace {

std::string cell(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "n/a";
  char text[32];
  const double d = v.get<double>();
  std::snprintf(text, sizeof text, d != 0 && (d >= 1e6 || d < 1e-2) ? "%.3g" : "%.2f", d);
  return text;
}

void row(std::string& out, const std::string& name, const std::string& value) {
  char line[256];
  std::snprintf(line, sizeof line, "  %-26s%16s\n", name.c_str(), value.c_str());
  out += line;
}

void class_rows(std::string& out, const json& e) {
  row(out, "sent", std::to_string(e["sent"].get<uint64_t>()));
  row(out, "answered (measured)", std::to_string(e["count"].get<uint64_t>()));
  row(out, "dropped (timeout)", std::to_string(e["dropped"].get<uint64_t>()));
  row(out, "overloaded", std::to_string(e["overloaded"].get<uint64_t>()));
  row(out, "bad request", std::to_string(e["bad_request"].get<uint64_t>()));
  for (const char* stat : {"p50", "p99", "p99.9", "max"}) {
    row(out, std::string("latency us ") + stat, cell(e["sojourn_us"][stat]));
  }
  if (!e["slowdown"].is_null()) {
    for (const char* stat : {"p50", "p99", "p99.9"}) row(out, std::string("slowdown ") + stat, cell(e["slowdown"][stat]));
  }
}

}  // namespace

std::string load_to_text(const json& r) {
  const json& c = r["config"];
  std::string out;
  char head[512];
  std::snprintf(head, sizeof head, "load  %s  workload %s  %s arrivals at %s rps  %g s  timeout %g ms\n",
                c["target"].get<std::string>().c_str(), c["workload"].get<std::string>().c_str(),
                c["arrivals"].get<std::string>().c_str(), cell(c["rate_rps"]).c_str(),
                c["duration_s"].get<double>(), c["timeout_ms"].get<double>());
  out += head;
  out += "latency: intended send time to reply (us); a dropped request counts as infinite\n";
  for (const auto& [key, entry] : r["classes"].items()) {
    const std::string label = entry["label"].get<std::string>();
    char title[160];
    if (label != key) {
      std::snprintf(title, sizeof title, "class %s (%s us, %.1f%%)\n", label.c_str(), key.c_str(),
                    entry["share"].get<double>() * 100);
    } else {
      std::snprintf(title, sizeof title, "class %s (%.1f%%)\n", label.c_str(), entry["share"].get<double>() * 100);
    }
    out += title;
    class_rows(out, entry);
  }
  out += "overall\n";
  class_rows(out, r["overall"]);
  const json& k = r["client"];
  out += "client\n";
  for (const char* name : {"scheduled", "sent", "answered", "dropped", "overloaded", "bad_request", "send_failures",
                           "late_sends", "late_replies", "out_of_order_replies", "malformed_replies"}) {
    row(out, name, std::to_string(k[name].get<uint64_t>()));
  }
  row(out, "worst send lag us", cell(k["worst_send_lag_us"]));
  row(out, "achieved rps", cell(r["rates"]["achieved_rps"]));
  for (const json& w : r["warnings"]) out += "warning: " + w["message"].get<std::string>() + "\n";
  return out;
}

}  // namespace quanta
