#include "io/workload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "io/schedule.h"

namespace quanta {
namespace {

TEST(Workload, NamedWorkloadsHaveThePapersClasses) {
  const Workload eb = Workload::parse("extreme-bimodal");
  ASSERT_EQ(eb.classes().size(), 2u);
  EXPECT_EQ(eb.classes()[0].key, "0.5");
  EXPECT_EQ(eb.classes()[0].label, "short");
  EXPECT_DOUBLE_EQ(eb.classes()[0].probability, 0.995);
  EXPECT_EQ(eb.classes()[1].key, "500");
  EXPECT_EQ(eb.classes()[1].label, "long");
  EXPECT_NEAR(eb.mean_us(), 0.995 * 0.5 + 0.005 * 500, 1e-12);
  EXPECT_EQ(Workload::parse("tpcc").classes().size(), 5u);
  EXPECT_NEAR(Workload::parse("tpcc").mean_us(), 0.44 * 5.7 + 0.04 * 6 + 0.44 * 20 + 0.04 * 88 + 0.04 * 100, 1e-9);
  EXPECT_EQ(Workload::parse("fixed1").classes()[0].label, "all");
  EXPECT_EQ(Workload::parse("exp1").shape(), Workload::Shape::kExponential);
}

TEST(Workload, SpecsParse) {
  EXPECT_DOUBLE_EQ(Workload::parse("fixed:3").mean_us(), 3);
  EXPECT_DOUBLE_EQ(Workload::parse("exp:2.5").mean_us(), 2.5);
  EXPECT_DOUBLE_EQ(Workload::parse("bimodal:90:1:10").mean_us(), 0.9 + 1.0);
  EXPECT_DOUBLE_EQ(Workload::parse("lognormal:4:0.5").mean_us(), 4);
  EXPECT_EQ(Workload::parse("bimodal:100:1:10").classes().size(), 1u);  // an empty class is dropped
}

TEST(Workload, BadSpecsNameWhatIsWrong) {
  auto message = [](const char* spec) {
    try {
      Workload::parse(spec);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("bimodal:50:1").find("bimodal:P:A:B"), std::string::npos);
  EXPECT_NE(message("fixed:abc").find("'abc' is not a number"), std::string::npos);
  EXPECT_NE(message("exp:-1").find("above 0"), std::string::npos);
  EXPECT_NE(message("bimodal:120:1:2").find("0..100"), std::string::npos);
  EXPECT_NE(message("pareto:1").find("unknown"), std::string::npos);
  // A service time is held in 32 bits of ns: beyond 4 s it would be cut while the report
  // named the spec's time.
  EXPECT_NE(message("fixed:5e6").find("at most 4e6 us"), std::string::npos);
  EXPECT_NE(message("bimodal:50:1:5e6").find("service time B must be at most 4e6 us"), std::string::npos);
  EXPECT_EQ(message("fixed:4e6"), "accepted");
  // Continuous shapes: refused when the cut at 4 s would take over 1% of the mean.
  EXPECT_NE(message("exp:1e6").find("mean too large"), std::string::npos);
  EXPECT_EQ(message("exp:1e5"), "accepted");
  EXPECT_NE(message("lognormal:1:50").find("sigma must be at most 3"), std::string::npos);
  EXPECT_NE(message("lognormal:1e4:3").find("mean too large"), std::string::npos);
  EXPECT_EQ(message("lognormal:10:3"), "accepted");
}

// Sample means against the distribution means; tolerance 5 standard errors.
TEST(Workload, SamplesHaveTheRightMean) {
  for (const char* spec : {"exp1", "lognormal:10:1", "lognormal:10:2", "extreme-bimodal", "tpcc"}) {
    const Workload w = Workload::parse(spec);
    Rng rng(11);
    constexpr int kN = 400'000;
    double sum = 0, sum_sq = 0;
    for (int i = 0; i < kN; ++i) {
      const double us = w.sample(rng).service_ns / 1000.0;
      sum += us;
      sum_sq += us * us;
    }
    const double mean = sum / kN;
    const double stderr_mean = std::sqrt((sum_sq / kN - mean * mean) / kN);
    EXPECT_NEAR(mean, w.mean_us(), 5 * stderr_mean) << spec;
  }
}

TEST(Schedule, PoissonArrivalsAreOrderedAndHaveTheRate) {
  const Workload w = Workload::parse("extreme-bimodal");
  const auto schedule = make_poisson_schedule(w, {100'000, 2.0, 3});
  // Count is Poisson(200000): sd ~ 447.
  EXPECT_NEAR(static_cast<double>(schedule.size()), 200'000, 5 * 447);
  for (std::size_t i = 1; i < schedule.size(); ++i) ASSERT_LE(schedule[i - 1].arrival_ns, schedule[i].arrival_ns);
  EXPECT_LT(schedule.back().arrival_ns, 2'000'000'000u);
  const auto again = make_poisson_schedule(w, {100'000, 2.0, 3});
  EXPECT_EQ(again.size(), schedule.size());
  EXPECT_EQ(again[1000].arrival_ns, schedule[1000].arrival_ns);
}

TEST(Schedule, RefusesASchedulTooLargeToHold) {
  EXPECT_THROW(make_poisson_schedule(Workload::parse("fixed1"), {1e9, 1000, 1}), std::invalid_argument);
}

}  // namespace
}  // namespace quanta
