// The run report's untouched statistics, on results built by hand: counts only, no clock.
#include "experiment/report.h"

#include <gtest/gtest.h>

#include <string>

namespace quanta {
namespace {

using nlohmann::json;

// A finished request of `class_index` with the given sojourn (µs), through the recorder
// every runtime uses, so `untouched` is filled the way a real run fills it.
void finish(RequestRecorder& recorder, uint32_t class_index, uint32_t service_ns, uint64_t sojourn_us,
            bool touched) {
  recorder.record({.arrival = 0,
                   .finish = sojourn_us * 1000,
                   .cpu = service_ns,
                   .nominal_service_ns = service_ns,
                   .class_index = class_index,
                   .preemptions = 0,
                   .measured = true,
                   .stall_touched = touched});
}

// extreme-bimodal: class 0 is short (0.5 µs), class 1 long (500 µs). Short: 10 requests,
// 3 of them touched by a stall (and slow); long: 4 requests, 1 touched.
RunResult hand_made_run(const Workload& workload) {
  RequestRecorder recorder(workload.classes().size(), 1.0);
  for (int i = 0; i < 7; ++i) finish(recorder, 0, 500, 1, false);
  for (int i = 0; i < 3; ++i) finish(recorder, 0, 500, 2000, true);
  for (int i = 0; i < 3; ++i) finish(recorder, 1, 500'000, 600, false);
  finish(recorder, 1, 500'000, 5000, true);
  RunResult r;
  r.config.workers = 1;
  r.cpus = 2;
  r.dispatch.generated = 14;
  r.completed = 14;
  r.add_recorded(recorder);
  return r;
}

TEST(Report, UntouchedIsASubsetOfAllInEveryCount) {
  const Workload workload = Workload::parse("extreme-bimodal");
  const json out = run_to_json(hand_made_run(workload), workload, "run");
  ASSERT_TRUE(out.contains("untouched"));
  const json& untouched = out["untouched"];
  EXPECT_EQ(out["requests"]["measured"], 14u);
  EXPECT_EQ(out["requests"]["stall_touched"], 4u);
  EXPECT_EQ(untouched["requests"], 10u);
  EXPECT_EQ(untouched["overall"]["count"], 10u);
  EXPECT_EQ(out["overall"]["count"], 14u);
  EXPECT_EQ(out["classes"]["0.5"]["stall_touched"], 3u);
  EXPECT_EQ(out["classes"]["500"]["stall_touched"], 1u);
  for (const auto& [key, entry] : out["classes"].items()) {
    const json& subset = untouched["classes"].at(key);
    EXPECT_LE(subset["count"].get<uint64_t>(), entry["count"].get<uint64_t>()) << key;
    EXPECT_EQ(subset["count"].get<uint64_t>() + entry["stall_touched"].get<uint64_t>(), entry["count"].get<uint64_t>())
        << key;
    EXPECT_EQ(subset["label"], entry["label"]) << key;
    EXPECT_EQ(subset["service_us"], entry["service_us"]) << key;
    EXPECT_EQ(subset["share"], entry["share"]) << key;
    EXPECT_FALSE(subset.contains("stall_touched")) << key;
  }
  // The raw statistics still include the slow touched requests; the untouched ones do not.
  EXPECT_GT(out["classes"]["0.5"]["sojourn_us"]["max"].get<double>(), 1000);
  EXPECT_LT(untouched["classes"]["0.5"]["sojourn_us"]["max"].get<double>(), 10);
}

TEST(Report, NoUntouchedStatisticsMeansNoneReported) {
  const Workload workload = Workload::parse("extreme-bimodal");
  RunResult r = hand_made_run(workload);
  for (const std::size_t size : {0, 1}) {
    r.untouched.resize(size);  // a producer that did not judge its requests
    const json out = run_to_json(r, workload, "sim");
    EXPECT_FALSE(out.contains("untouched")) << size;
    EXPECT_FALSE(out["requests"].contains("stall_touched")) << size;
    EXPECT_FALSE(out["classes"]["0.5"].contains("stall_touched")) << size;
    EXPECT_EQ(out["overall"]["count"], 14u) << size;
    const std::string text = runs_to_text({out});
    EXPECT_EQ(text.find("untouched"), std::string::npos) << size;
    EXPECT_EQ(text.find("a stall touched"), std::string::npos) << size;
  }
}

TEST(Report, AnUntouchedSetLargerThanAllIsLeftOut) {
  // Not a state the recorder produces; the report must still never show a subset larger
  // than its whole.
  const Workload workload = Workload::parse("extreme-bimodal");
  RunResult r = hand_made_run(workload);
  r.untouched[1].sojourn_ns.record(1000);
  r.untouched[1].sojourn_ns.record(1000);
  EXPECT_FALSE(run_to_json(r, workload, "run").contains("untouched"));
}

TEST(Report, AllUntouchedWhenNoStallTouchedAny) {
  const Workload workload = Workload::parse("extreme-bimodal");
  RunResult r = hand_made_run(workload);
  r.untouched = r.classes;
  const json out = run_to_json(r, workload, "sim");
  EXPECT_EQ(out["requests"]["stall_touched"], 0u);
  EXPECT_EQ(out["untouched"]["requests"], out["requests"]["measured"]);
  EXPECT_EQ(out["untouched"]["overall"], out["overall"]);
}

TEST(Report, TextHasTheTouchedCountAndTheUntouchedSection) {
  const Workload workload = Workload::parse("extreme-bimodal");
  const std::string text = runs_to_text({run_to_json(hand_made_run(workload), workload, "run")});
  const std::size_t stalls = text.find("stalled ms (largest)");
  const std::size_t touched = text.find("requests a stall touched");
  const std::size_t section = text.find("untouched requests");
  const std::size_t short_class = text.find("untouched class short (0.5 us, 99.5%)");
  const std::size_t long_class = text.find("untouched class long (500 us, 0.5%)");
  const std::size_t overall = text.find("untouched overall");
  ASSERT_NE(stalls, std::string::npos);
  ASSERT_NE(touched, std::string::npos);
  ASSERT_NE(section, std::string::npos);
  ASSERT_NE(short_class, std::string::npos);
  ASSERT_NE(long_class, std::string::npos);
  ASSERT_NE(overall, std::string::npos);
  EXPECT_LT(stalls, touched);
  EXPECT_LT(touched, section);
  EXPECT_LT(section, short_class);
  EXPECT_LT(short_class, long_class);
  EXPECT_LT(long_class, overall);
  // 4 of 14 measured requests: the count and its percent, on the row.
  const std::string row = text.substr(touched, text.find('\n', touched) - touched);
  EXPECT_NE(row.find("4 (28.57%)"), std::string::npos) << row;
  // The untouched short class counts its 7 requests.
  const std::size_t measured = text.find("requests measured", short_class);
  const std::string count_row = text.substr(measured, text.find('\n', measured) - measured);
  EXPECT_NE(count_row.find(" 7"), std::string::npos) << count_row;
}

TEST(Report, TextLeavesOutUntouchedRowsThatRepeatTheRawOnes) {
  const Workload workload = Workload::parse("extreme-bimodal");
  RunResult r = hand_made_run(workload);
  r.untouched = r.classes;  // no stall touched any request
  const std::string text = runs_to_text({run_to_json(r, workload, "sim")});
  const std::size_t touched = text.find("requests a stall touched");
  ASSERT_NE(touched, std::string::npos);
  const std::string row = text.substr(touched, text.find('\n', touched) - touched);
  EXPECT_NE(row.find("0 (0.00%)"), std::string::npos) << row;
  EXPECT_EQ(text.find("untouched requests"), std::string::npos);
  EXPECT_EQ(text.find("untouched class"), std::string::npos);
}

TEST(Report, TextMarksARunWithoutUntouchedStatistics) {
  const Workload workload = Workload::parse("extreme-bimodal");
  RunResult judged = hand_made_run(workload);
  RunResult unjudged = judged;
  unjudged.untouched.clear();
  const std::string text =
      runs_to_text({run_to_json(judged, workload, "run"), run_to_json(unjudged, workload, "run")});
  const std::size_t touched = text.find("requests a stall touched");
  ASSERT_NE(touched, std::string::npos);
  const std::string row = text.substr(touched, text.find('\n', touched) - touched);
  EXPECT_NE(row.find("n/a"), std::string::npos) << row;
  EXPECT_NE(text.find("untouched class short"), std::string::npos);
}

}  // namespace
}  // namespace quanta
