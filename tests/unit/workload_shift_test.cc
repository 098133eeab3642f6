// --workload-shift (Workload::shifting): service times that change mid-run. Every
// arrival before a shift draws from the workload in force then, every one after from the
// next; the classes are the union; a workload that does not shift draws as it always did.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "io/schedule.h"
#include "io/workload.h"

namespace quanta {
namespace {

TEST(WorkloadShift, ClassesAreTheUnionInOrderOfFirstAppearance) {
  const Workload w = Workload::shifting(Workload::parse("exp1"), "extreme-bimodal@2,exp1@4,high-bimodal@6");
  ASSERT_EQ(w.classes().size(), 5u);
  EXPECT_EQ(w.classes()[0].key, "exp1");
  EXPECT_EQ(w.classes()[0].label, "exp1");  // not "all": there are other classes
  EXPECT_EQ(w.classes()[1].key, "0.5");
  EXPECT_EQ(w.classes()[1].label, "short");
  EXPECT_EQ(w.classes()[2].key, "500");
  EXPECT_EQ(w.classes()[2].label, "long");
  // high-bimodal's short and long are taken: its classes go by their keys.
  EXPECT_EQ(w.classes()[3].key, "1");
  EXPECT_EQ(w.classes()[3].label, "1");
  EXPECT_EQ(w.classes()[4].label, "100");
  EXPECT_DOUBLE_EQ(w.mean_us(), 1.0);  // the first workload's: the rate --load gives
  EXPECT_TRUE(w.service_known());
  EXPECT_EQ(w.shift_spec(), "extreme-bimodal@2,exp1@4,high-bimodal@6");
}

TEST(WorkloadShift, EveryArrivalDrawsFromTheWorkloadInForceWhenItArrives) {
  const Workload w = Workload::shifting(Workload::parse("fixed:1"), "fixed:3@1,bimodal:50:1:7@2");
  ASSERT_EQ(w.classes().size(), 3u);  // "1", "3", "7": bimodal's 1 us is the first class
  RateProfile constant;
  const std::vector<Arrival> schedule = make_poisson_schedule(w, {20'000, 3.0, 7, &constant});
  uint64_t per_class[3][3] = {};  // [phase][class]
  for (const Arrival& a : schedule) {
    const int phase = a.arrival_ns < 1'000'000'000 ? 0 : a.arrival_ns < 2'000'000'000 ? 1 : 2;
    ASSERT_LT(a.class_index, 3u);
    ++per_class[phase][a.class_index];
    EXPECT_EQ(a.service_ns, a.class_index == 0 ? 1000u : a.class_index == 1 ? 3000u : 7000u);
  }
  EXPECT_GT(per_class[0][0], 15'000u);
  EXPECT_EQ(per_class[0][1] + per_class[0][2], 0u);
  EXPECT_GT(per_class[1][1], 15'000u);
  EXPECT_EQ(per_class[1][0] + per_class[1][2], 0u);
  // Half and half in the last phase, both classes seen.
  EXPECT_GT(per_class[2][0], 8'000u);
  EXPECT_GT(per_class[2][2], 8'000u);
  EXPECT_EQ(per_class[2][1], 0u);
}

TEST(WorkloadShift, BeforeTheFirstShiftTheArrivalsAreThoseOfTheFirstWorkload) {
  // Same seed: the same gaps and the same draws until the shift.
  const Workload plain = Workload::parse("extreme-bimodal");
  const Workload shifting = Workload::shifting(plain, "fixed:9@0.5");
  RateProfile constant;
  const std::vector<Arrival> a = make_poisson_schedule(plain, {100'000, 1.0, 3, &constant});
  const std::vector<Arrival> b = make_poisson_schedule(shifting, {100'000, 1.0, 3, &constant});
  ASSERT_EQ(a.size(), b.size());
  std::size_t before = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].arrival_ns, b[i].arrival_ns);
    if (a[i].arrival_ns < 500'000'000) {
      EXPECT_EQ(a[i].class_index, b[i].class_index);
      EXPECT_EQ(a[i].service_ns, b[i].service_ns);
      ++before;
    } else {
      EXPECT_EQ(b[i].class_index, 2u);  // fixed:9 comes after 0.5 and 500
      EXPECT_EQ(b[i].service_ns, 9000u);
    }
  }
  EXPECT_GT(before, 40'000u);
  EXPECT_LT(before, a.size());
}

TEST(WorkloadShift, BadShiftsNameWhatIsWrong) {
  const Workload first = Workload::parse("exp1");
  auto error = [&](const std::string& shifts) {
    try {
      Workload::shifting(first, shifts);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(error("").find("SPEC@T_S"), std::string::npos) << error("");
  EXPECT_NE(error("exp1").find("not SPEC@T_S"), std::string::npos) << error("exp1");
  EXPECT_NE(error("exp1@0").find("above 0 and increasing"), std::string::npos) << error("exp1@0");
  EXPECT_NE(error("exp1@2,fixed1@1").find("above 0 and increasing"), std::string::npos);
  EXPECT_NE(error("exp1@x").find("not a number of seconds"), std::string::npos) << error("exp1@x");
  EXPECT_NE(error("nope@1").find("unknown name"), std::string::npos) << error("nope@1");
  EXPECT_NE(error("fixed:1@inf").find("not a number"), std::string::npos) << error("fixed:1@inf");
  const Workload app = Workload::declared("kv", {{"get", 1, 1}, {"set", 1, 2}});
  try {
    Workload::shifting(app, "exp1@1");
    ADD_FAILURE() << "an app's classes shifted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("its own classes"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace quanta
