#include "sim/calibration.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

namespace quanta {
namespace {

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/quanta_calibration_XXXXXX";
  const int fd = mkstemp(path);
  std::FILE* f = fdopen(fd, "w");
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return path;
}

TEST(Calibration, ReadsKnownKeysAndAllowsNotes) {
  const std::string path = write_temp(
      R"({"yield_round_trip_ns": 42.5, "probe_overhead_pct": 3, "dispatch_ns_per_request": 80,
          "quantum_jitter_ns": 150, "request_overhead_ns": 600, "notes": "by hand", "source": "bench"})");
  const SimOverheads o = load_calibration(path);
  EXPECT_EQ(o.preempt_overhead_ns, 42.5);
  EXPECT_EQ(o.probe_overhead_pct, 3);
  EXPECT_EQ(o.dispatch_ns, 80);
  EXPECT_EQ(o.quantum_jitter_ns, 150);
  EXPECT_EQ(o.request_overhead_ns, 600);
  std::remove(path.c_str());
}

TEST(Calibration, ReadsTheFormOfQuantaCalibrate) {
  const std::string path = write_temp(
      R"({"machine": {"cpus": 2}, "quantum_round_trip_ns": 51.5, "probe_ns": {"clock": 7.1},
          "dispatch_ns_per_request": {"dispatcher_only": 33.0, "two_level_noop": 610.0}})");
  const SimOverheads o = load_calibration(path);
  EXPECT_EQ(o.preempt_overhead_ns, 51.5);
  EXPECT_EQ(o.dispatch_ns, 33.0);
  EXPECT_EQ(o.request_overhead_ns, 0);
  std::remove(path.c_str());
  const std::string bad = write_temp(R"({"dispatch_ns_per_request": {"median": 3}})");
  EXPECT_THROW(load_calibration(bad), std::invalid_argument);
  std::remove(bad.c_str());
}

TEST(Calibration, ReadsEachMechanismsCostsAsCalibrateWritesThem) {
  // Latencies come as a spread: the model takes the median.
  const std::string path = write_temp(
      R"({"flag_notification_ns": {"p50": 180, "p99": 950, "mean": 260},
          "signal_preemption_ns": {"p50": 9100, "p99": 40000, "mean": 15000}, "signal_cpu_cost_ns": 3900,
          "monitor_poll_ns": 45, "requeue_ns": 120, "tsc_read_ns": 9, "user_interrupts": {"usable": false}})");
  const SimOverheads o = load_calibration(path);
  EXPECT_EQ(o.flag_notification_ns, 180);
  EXPECT_EQ(o.signal_latency_ns, 9100);
  EXPECT_EQ(o.signal_cpu_ns, 3900);
  EXPECT_EQ(o.monitor_poll_ns, 45);
  EXPECT_EQ(o.requeue_ns, 120);
  std::remove(path.c_str());
  // A plain number is taken as it is; a spread without its median is an error naming the key.
  const std::string plain = write_temp(R"({"flag_notification_ns": 75, "signal_preemption_ns": 5000})");
  EXPECT_EQ(load_calibration(plain).flag_notification_ns, 75);
  EXPECT_EQ(load_calibration(plain).signal_latency_ns, 5000);
  std::remove(plain.c_str());
  const std::string no_median = write_temp(R"({"signal_preemption_ns": {"mean": 5000}})");
  try {
    load_calibration(no_median);
    ADD_FAILURE() << "a spread without p50 was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("signal_preemption_ns"), std::string::npos);
  }
  std::remove(no_median.c_str());
  const std::string typo = write_temp(R"({"signal_cpu_ns": 3900})");  // the option's name, not the key
  try {
    load_calibration(typo);
    ADD_FAILURE() << "an unknown key was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown key 'signal_cpu_ns'"), std::string::npos);
  }
  std::remove(typo.c_str());
}

TEST(Calibration, PreemptOverheadWinsOverYieldRoundTrip) {
  const std::string path = write_temp(R"({"yield_round_trip_ns": 40, "preempt_overhead_ns": 100})");
  EXPECT_EQ(load_calibration(path).preempt_overhead_ns, 100);
  std::remove(path.c_str());
}

TEST(Calibration, BadFilesAreClearErrors) {
  auto message = [](const std::string& path) {
    try {
      load_calibration(path);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("/nonexistent/cal.json").find("--calibration"), std::string::npos);
  const std::string not_json = write_temp("{yield: 3");
  EXPECT_NE(message(not_json).find("not valid JSON"), std::string::npos);
  const std::string array = write_temp("[1, 2]");
  EXPECT_NE(message(array).find("object"), std::string::npos);
  const std::string negative = write_temp(R"({"probe_overhead_pct": -1})");
  EXPECT_NE(message(negative).find("probe_overhead_pct"), std::string::npos);
  const std::string text = write_temp(R"({"dispatch_ns_per_request": "fast"})");
  EXPECT_NE(message(text).find("dispatch_ns_per_request"), std::string::npos);
  // A misspelt key would leave its overhead at 0 without a word.
  const std::string typo = write_temp(R"({"probe_overhead_pc": 5})");
  EXPECT_NE(message(typo).find("unknown key 'probe_overhead_pc'"), std::string::npos);
  EXPECT_NE(message("/tmp").find("is a directory"), std::string::npos);
  for (const auto& p : {not_json, array, negative, text, typo}) std::remove(p.c_str());
}

}  // namespace
}  // namespace quanta
