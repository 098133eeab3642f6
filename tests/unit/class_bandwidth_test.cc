// LC/BE classes with Microquanta-style bandwidths: who runs next and how the budget is
// spent and refilled (policy/class_bandwidth.h). Units are arbitrary ticks.
#include "policy/class_bandwidth.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace quanta {
namespace {

constexpr bool kLc = true;
constexpr bool kBe = false;

TEST(ClassBandwidth, LatencyCriticalRunsBeforeBestEffortWithoutABandwidth) {
  ClassBandwidth classes({{kLc, 0}, {kBe, 0}});
  const bool both[] = {true, true};
  EXPECT_EQ(classes.pick(0, both), 0u);
  const bool be_only[] = {false, true};
  EXPECT_EQ(classes.pick(0, be_only), 1u) << "best effort uses a CPU nothing else wants";
  const bool none[] = {false, false};
  EXPECT_FALSE(classes.pick(0, none).has_value());
  EXPECT_EQ(classes.allowance(1, 0), ClassBandwidth::kUnlimited);
}

TEST(ClassBandwidth, HigherPriorityFirstWithinATierThenTheLowerIndex) {
  ClassBandwidth classes({{kLc, 1}, {kLc, 5}, {kLc, 5}});
  const bool all[] = {true, true, true};
  EXPECT_EQ(classes.pick(0, all), 1u);
}

TEST(ClassBandwidth, ABudgetedBestEffortClassGetsItsRuntimeEvenWhileLatencyCriticalWorkWaits) {
  // BE: 30 ticks in every 100.
  ClassBandwidth classes({{kLc, 10}, {kBe, 0, 30, 100}});
  const bool both[] = {true, true};
  EXPECT_EQ(classes.pick(0, both), 1u);
  EXPECT_EQ(classes.allowance(1, 0), 30u);
  classes.charge(1, 20, 20);
  EXPECT_EQ(classes.allowance(1, 20), 10u);
  EXPECT_EQ(classes.pick(20, both), 1u);
  classes.charge(1, 10, 30);
  EXPECT_EQ(classes.used(1, 30), 30u);
  EXPECT_EQ(classes.pick(30, both), 0u) << "its budget spent, BE waits while LC work waits";
  const bool be_only[] = {false, true};
  EXPECT_EQ(classes.pick(30, be_only), 1u) << "uncapped: it may use the idle CPU";
  EXPECT_EQ(classes.allowance(1, 30), ClassBandwidth::kUnlimited);
  // The next period refills the budget.
  EXPECT_EQ(classes.pick(100, both), 1u);
  EXPECT_EQ(classes.used(1, 100), 0u);
}

TEST(ClassBandwidth, ACappedClassNeverRunsPastItsBudget) {
  ClassBandwidth classes({{kLc, 0}, {kBe, 0, 30, 100, true}});
  const bool be_only[] = {false, true};
  classes.charge(1, 30, 40);
  EXPECT_FALSE(classes.pick(50, be_only).has_value()) << "capped: the CPU idles until the next period";
  EXPECT_EQ(classes.pick(100, be_only), 1u);
}

TEST(ClassBandwidth, TheAllowanceEndsWithThePeriod) {
  ClassBandwidth classes({{kBe, 0, 30, 100}});
  EXPECT_EQ(classes.allowance(0, 90), 10u) << "the budget is this period's";
  EXPECT_EQ(classes.allowance(0, 100), 30u);
}

TEST(ClassBandwidth, ALatencyCriticalClassWithABandwidthIsThrottledPastIt) {
  // Microquanta's own case: a high-priority class held to 50 in every 100.
  ClassBandwidth classes({{kLc, 10, 50, 100}, {kBe, 0}});
  const bool both[] = {true, true};
  EXPECT_EQ(classes.pick(0, both), 0u);
  classes.charge(0, 50, 50);
  EXPECT_EQ(classes.pick(50, both), 1u) << "past its budget it yields to the others";
  const bool lc_only[] = {true, false};
  EXPECT_EQ(classes.pick(50, lc_only), 0u) << "and uses the CPU when nobody else wants it";
}

TEST(ClassBandwidth, BadParametersNameTheClass) {
  EXPECT_THROW(ClassBandwidth({{kBe, 0, 30, 0}}), std::invalid_argument);
  EXPECT_THROW(ClassBandwidth({{kBe, 0, 0, 0, true}}), std::invalid_argument);
  try {
    ClassBandwidth({{kLc, 0}, {kBe, 0, 300, 100}});
    FAIL() << "a runtime longer than its period";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("class 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace quanta
