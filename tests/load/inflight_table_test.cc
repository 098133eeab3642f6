// The client's bookkeeping without sockets: the in-flight table's outcomes and sweep, the
// percentiles with drops, the target's parser, the constant schedule.
#include <gtest/gtest.h>

#include "load/inflight_table.h"
#include "load/load_stats.h"
#include "load/send_schedule.h"
#include "load/target.h"
#include "quanta/wire.h"

namespace quanta {
namespace {

TEST(InflightTable, RepliesResolveOnceAndTheSweepDropsTheRest) {
  InflightTable t(5);
  ReplyAnomalies a;
  for (uint64_t id = 0; id < 4; ++id) t.mark_sent(id, 100 + id * 10);  // sent at 100, 110, 120, 130
  EXPECT_EQ(t.in_flight(), 4u);
  EXPECT_TRUE(t.resolve(1, QUANTA_WIRE_OK, 200, a));
  EXPECT_TRUE(t.resolve(2, QUANTA_WIRE_OVERLOADED, 200, a));
  EXPECT_FALSE(t.resolve(1, QUANTA_WIRE_OK, 210, a));  // twice
  EXPECT_FALSE(t.resolve(9, QUANTA_WIRE_OK, 210, a));  // never sent
  EXPECT_EQ(a.unknown, 2u);
  t.sweep(105, 4);  // only request 0 was sent by 105
  EXPECT_EQ(t[0].outcome, Outcome::kDropped);
  EXPECT_EQ(t[3].outcome, Outcome::kInFlight);
  EXPECT_FALSE(t.resolve(0, QUANTA_WIRE_OK, 300, a));  // after its timeout
  EXPECT_EQ(a.late, 1u);
  t.sweep(1000, 4);
  EXPECT_EQ(t.in_flight(), 0u);
  EXPECT_EQ(t.answered(), 1u);
  EXPECT_EQ(t.overloaded(), 1u);
  EXPECT_EQ(t.dropped(), 2u);
  EXPECT_EQ(t[4].outcome, Outcome::kNotSent);
}

TEST(PercentileWithDrops, PercentilesAmongTheDroppedAreInfinite) {
  Histogram h;
  for (uint64_t v = 1; v <= 90; ++v) h.record(v);
  EXPECT_EQ(percentile_with_drops(h, 10, 50).value(), 50.0);
  EXPECT_EQ(percentile_with_drops(h, 10, 90).value(), 90.0);
  EXPECT_FALSE(percentile_with_drops(h, 10, 91).has_value());
  EXPECT_FALSE(percentile_with_drops(h, 10, 99).has_value());
  EXPECT_EQ(percentile_with_drops(h, 0, 99).value(), static_cast<double>(h.value_at_percentile(99)));
  EXPECT_FALSE(percentile_with_drops(Histogram(), 3, 1).has_value());
}

TEST(Target, ParsesUdpAndTcpAndRefusesTheRest) {
  const Target udp = parse_target("udp://127.0.0.1:9000");
  EXPECT_EQ(udp.protocol, Target::Protocol::kUdp);
  EXPECT_EQ(udp.port, 9000u);
  EXPECT_EQ(parse_target("tcp://localhost:1").protocol, Target::Protocol::kTcp);
  EXPECT_EQ(parse_target("tcp://[::1]:80").host, "::1");
  for (const char* bad : {"127.0.0.1:9000", "http://127.0.0.1:80", "udp://127.0.0.1", "udp://:80",
                          "udp://127.0.0.1:0", "udp://127.0.0.1:70000", "udp://127.0.0.1:8x", "tcp://127.0.0.1:-1"}) {
    EXPECT_THROW(parse_target(bad), std::invalid_argument) << bad;
  }
}

TEST(SendSchedule, ConstantGapsKeepTheRateAndThePoissonServiceDraws) {
  const Workload w = Workload::parse("bimodal:50:1:10");
  const auto constant = make_send_schedule(w, {1000, 1, 3}, ArrivalProcess::kConstant);
  ASSERT_EQ(constant.size(), 1000u);
  for (std::size_t i = 0; i < constant.size(); ++i) EXPECT_EQ(constant[i].arrival_ns, i * 1'000'000) << i;
  const auto poisson = make_send_schedule(w, {1000, 1, 3}, ArrivalProcess::kPoisson);
  for (std::size_t i = 0; i < std::min(poisson.size(), constant.size()); ++i) {
    EXPECT_EQ(poisson[i].service_ns, constant[i].service_ns) << i;
  }
  EXPECT_THROW(parse_arrival_process("bursty"), std::invalid_argument);
}

}  // namespace
}  // namespace quanta
