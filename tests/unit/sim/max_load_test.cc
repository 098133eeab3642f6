#include "experiment/max_load.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "experiment/report.h"
#include "sim/engine.h"

namespace quanta {
namespace {

TEST(MaxLoad, ParsesObjectives) {
  MaxLoadObjective o = parse_max_load_objective("short:p99.9-slowdown<=10");
  EXPECT_EQ(o.target, "short");
  EXPECT_EQ(o.stat, "p99.9");
  EXPECT_TRUE(o.slowdown);
  EXPECT_EQ(o.limit, 10);
  o = parse_max_load_objective("all:p99-us<=50");
  EXPECT_EQ(o.target, "overall");
  EXPECT_FALSE(o.slowdown);
  EXPECT_EQ(o.limit, 50);
  o = parse_max_load_objective("0.5:mean-us<=2.5");
  EXPECT_EQ(o.target, "0.5");
  EXPECT_EQ(o.stat, "mean");
  o = parse_max_load_objective("exp:2:max-slowdown<=100");
  EXPECT_EQ(o.target, "exp:2");
}

TEST(MaxLoad, RejectsBadObjectivesNamingTheProblem) {
  for (const char* bad : {"", "short", "short:p99-slowdown", "short:p99<=3", "short:p42-us<=3", ":p99-us<=3",
                          "short:p99-us<=", "short:p99-us<=x", "short:p99-us<=-1", "short:p99-us<=3x"}) {
    EXPECT_THROW(parse_max_load_objective(bad), std::invalid_argument) << bad;
  }
  try {
    parse_max_load_objective("short:p42-us<=3");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("p42"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("--max-load"), std::string::npos);
  }
}

TEST(MaxLoad, ParsesTheUntouchedPrefix) {
  MaxLoadObjective o = parse_max_load_objective("short:p99.9-slowdown<=50");
  EXPECT_FALSE(o.untouched);
  o = parse_max_load_objective("untouched:short:p99.9-slowdown<=50");
  EXPECT_TRUE(o.untouched);
  EXPECT_EQ(o.text, "untouched:short:p99.9-slowdown<=50");
  EXPECT_EQ(o.target, "short");
  EXPECT_EQ(o.stat, "p99.9");
  EXPECT_TRUE(o.slowdown);
  EXPECT_EQ(o.limit, 50);
  o = parse_max_load_objective("untouched:all:p99-us<=5");
  EXPECT_TRUE(o.untouched);
  EXPECT_EQ(o.target, "overall");
  EXPECT_FALSE(o.slowdown);
  o = parse_max_load_objective("untouched:exp:2:max-slowdown<=100");
  EXPECT_TRUE(o.untouched);
  EXPECT_EQ(o.target, "exp:2");
}

TEST(MaxLoad, RejectsBadUntouchedObjectives) {
  // The prefix alone, or with no class, no bound, a bad metric or a bad bound.
  for (const char* bad : {"untouched:", "untouched:p99-us<=3", "untouched::p99-us<=3", "untouched:short:p99<=3",
                          "untouched:short:p99-us<=-1", "untouched:short:p99-us"}) {
    EXPECT_THROW(parse_max_load_objective(bad), std::invalid_argument) << bad;
  }
  try {
    parse_max_load_objective("untouched:p99-us<=3");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'untouched:p99-us<=3'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("CLASS"), std::string::npos) << e.what();
  }
}

// A run's JSON with raw and untouched statistics that differ, so the test sees which it read.
nlohmann::json run_with_untouched() {
  auto entry = [](const char* label, double p999) {
    return nlohmann::json{{"label", label}, {"slowdown", {{"p99.9", p999}}}, {"sojourn_us", {{"p99", p999 / 2}}}};
  };
  return {{"classes", {{"0.5", entry("short", 900)}, {"500", entry("long", 30)}}},
          {"overall", entry("all", 800)},
          {"untouched",
           {{"classes", {{"0.5", entry("short", 40)}, {"500", entry("long", 20)}}},
            {"overall", entry("all", 35)},
            {"requests", 10}}}};
}

TEST(MaxLoad, UntouchedObjectivesReadTheUntouchedStatistics) {
  const nlohmann::json run = run_with_untouched();
  EXPECT_EQ(objective_value(parse_max_load_objective("short:p99.9-slowdown<=50"), run), 900);
  EXPECT_EQ(objective_value(parse_max_load_objective("untouched:short:p99.9-slowdown<=50"), run), 40);
  EXPECT_EQ(objective_value(parse_max_load_objective("untouched:500:p99.9-slowdown<=50"), run), 20);
  EXPECT_EQ(objective_value(parse_max_load_objective("untouched:all:p99.9-slowdown<=50"), run), 35);
  EXPECT_EQ(objective_value(parse_max_load_objective("untouched:overall:p99-us<=50"), run), 17.5);
  EXPECT_THROW(objective_value(parse_max_load_objective("untouched:medium:p99-us<=1"), run), std::invalid_argument);
}

TEST(MaxLoad, AnUntouchedObjectiveOnARunWithoutThemSaysSo) {
  nlohmann::json run = run_with_untouched();
  run.erase("untouched");
  const MaxLoadObjective o = parse_max_load_objective("untouched:short:p99.9-slowdown<=50");
  try {
    objective_value(o, run);
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("untouched statistics"), std::string::npos) << what;
    EXPECT_NE(what.find(o.text), std::string::npos) << what;
  }
  run["untouched"] = nullptr;
  EXPECT_THROW(objective_value(o, run), std::invalid_argument);
  // The raw objective does not need them.
  EXPECT_EQ(objective_value(parse_max_load_objective("short:p99.9-slowdown<=50"), run), 900);
}

TEST(MaxLoad, BisectsOnTheUntouchedMetric) {
  // Raw p99 sojourn 1000 x load (stalls), untouched 100 x load: <= 62 holds up to 0.62
  // only when the search reads the untouched figure.
  const MaxLoadObjective o = parse_max_load_objective("untouched:overall:p99-us<=62");
  const auto result = find_max_load(
      o,
      [&](double load) {
        return nlohmann::json{{"config", {{"rate_rps", load * 1000}}},
                              {"overall", {{"sojourn_us", {{"p99", 1000 * load}}}}},
                              {"untouched", {{"overall", {{"sojourn_us", {{"p99", 100 * load}}}}}}},
                              {"classes", nlohmann::json::object()}};
      },
      {0, 1, 10});
  EXPECT_NEAR(result["max_load"].get<double>(), 0.62, 1.0 / 1024);
  EXPECT_EQ(result["objective"], "untouched:overall:p99-us<=62");
}

TEST(MaxLoad, BisectsAMonotoneMetric) {
  // A fake run whose overall p99 sojourn is 100 x load: the objective <= 62 holds up to 0.62.
  const MaxLoadObjective o = parse_max_load_objective("overall:p99-us<=62");
  int runs = 0;
  const auto result = find_max_load(
      o,
      [&](double load) {
        ++runs;
        return nlohmann::json{{"config", {{"rate_rps", load * 1000}}},
                              {"overall", {{"sojourn_us", {{"p99", 100 * load}}}}},
                              {"classes", nlohmann::json::object()}};
      },
      {0, 1, 10});
  EXPECT_EQ(runs, 10);
  EXPECT_NEAR(result["max_load"].get<double>(), 0.62, 1.0 / 1024);
  EXPECT_LE(result["max_load"].get<double>(), 0.62);
  EXPECT_EQ(result["points"].size(), 10u);
  EXPECT_EQ(result["points"][0]["load"], 0.5);
  EXPECT_TRUE(result["points"][0]["met"].get<bool>());
  EXPECT_NEAR(result["max_rate_rps"].get<double>(), 620, 1);
}

TEST(MaxLoad, NothingMetGivesZero) {
  const MaxLoadObjective o = parse_max_load_objective("overall:p99-us<=0");
  const auto result = find_max_load(o, [](double) {
    return nlohmann::json{{"config", {{"rate_rps", 1}}}, {"overall", {{"sojourn_us", {{"p99", 5.0}}}}}};
  });
  EXPECT_EQ(result["max_load"], 0.0);
  EXPECT_TRUE(result["run"].is_null());
}

TEST(MaxLoad, FindsTheMM1LoadFromTheSimulator) {
  // M/M/1: p99 sojourn = ln(100) / (1 - rho) µs, so p99 <= 15.35 holds up to rho = 0.7.
  const Workload w = Workload::parse("exp1");
  const MaxLoadObjective o = parse_max_load_objective("all:p99-us<=15.35");
  const auto result = find_max_load(o, [&](double load) {
    SimConfig c;
    c.run.workload = "exp1";
    c.run.workers = 1;
    c.run.load = load;
    c.run.local_policy = "fcfs";
    c.run.preempt = "none";
    c.jobs = 2'000'000;
    return run_to_json(simulate(c, w).run, w, "sim");
  });
  EXPECT_NEAR(result["max_load"].get<double>(), 0.7, 0.02);
  EXPECT_THROW(objective_value(parse_max_load_objective("long:p99-us<=1"), result["run"]), std::invalid_argument);
  EXPECT_NO_THROW(objective_value(parse_max_load_objective("exp1:p99-us<=1"), result["run"]));
  // The simulator judges its requests too: the untouched figures are there to read.
  EXPECT_NO_THROW(objective_value(parse_max_load_objective("untouched:exp1:p99-us<=1"), result["run"]));
}

}  // namespace
}  // namespace quanta
