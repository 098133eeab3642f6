// The latency logs' intervals: which requests land in which second, what is timed and
// what is only counted, and the HdrHistogram log's lines.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "core/tsc.h"
#include "load/latency_log.h"
#include "quanta/wire.h"

namespace quanta {
namespace {

// Four requests meant for 0.2 s, 0.5 s, 0.9 s and 2.1 s (nothing in second 1): answered
// 1 ms late, dropped, overloaded, answered 2 ms late.
struct FourRequests {
  std::vector<Arrival> schedule{{200'000'000, 1000, 0}, {500'000'000, 1000, 0}, {900'000'000, 1000, 0},
                                {2'100'000'000, 1000, 0}};
  LoadRunOutcome outcome{4};

  FourRequests() {
    outcome.start_tsc = 1'000'000;
    auto at = [&](uint64_t ns) { return outcome.start_tsc + ns_to_cycles(static_cast<double>(ns)); };
    ReplyAnomalies anomalies;
    for (uint64_t id = 0; id < 4; ++id) outcome.table.mark_sent(id, at(schedule[id].arrival_ns));
    outcome.table.resolve(0, QUANTA_WIRE_OK, at(201'000'000), anomalies);
    outcome.table.resolve(2, QUANTA_WIRE_OVERLOADED, at(901'000'000), anomalies);
    outcome.table.resolve(3, QUANTA_WIRE_OK, at(2'102'000'000), anomalies);
    outcome.table.sweep(at(3'000'000'000), 4);  // request 1 never answered
  }
};

TEST(LatencyLog, IntervalsFollowIntendedSendTimeAndKeepEmptySeconds) {
  const FourRequests r;
  std::vector<LatencyInterval> seen;
  for_each_latency_interval(r.outcome, r.schedule, [&](const LatencyInterval& i) { seen.push_back(i); });
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].index, 0u);
  EXPECT_EQ(seen[0].sent, 3u);
  EXPECT_EQ(seen[0].dropped, 1u);
  EXPECT_EQ(seen[0].overloaded, 1u);
  ASSERT_EQ(seen[0].latencies_ns.size(), 1u);
  EXPECT_NEAR(static_cast<double>(seen[0].latencies_ns[0]), 1e6, 2.0);
  EXPECT_EQ(seen[1].index, 1u);
  EXPECT_EQ(seen[1].sent, 0u);
  EXPECT_EQ(seen[2].index, 2u);
  ASSERT_EQ(seen[2].latencies_ns.size(), 1u);
  EXPECT_NEAR(static_cast<double>(seen[2].latencies_ns[0]), 2e6, 2.0);
}

TEST(LatencyLog, HdrLogHasOneLinePerSecondAfterItsHeader) {
  const FourRequests r;
  std::istringstream text(latency_interval_hdr_log(r.outcome, r.schedule));
  std::vector<std::string> intervals;
  bool legend = false;
  for (std::string line; std::getline(text, line);) {
    if (line.rfind("#", 0) == 0) {
      EXPECT_FALSE(legend) << "comment after the legend: " << line;
    } else if (line.rfind("\"StartTimestamp\"", 0) == 0) {
      legend = true;
    } else {
      intervals.push_back(line);
    }
  }
  EXPECT_TRUE(legend);
  ASSERT_EQ(intervals.size(), 3u);
  // The max column is in ms (the latencies went through the cycle counter: nearly 1 and 2).
  EXPECT_EQ(intervals[0].rfind("0.000,1.000,", 0), 0u) << intervals[0];
  EXPECT_NEAR(std::stod(intervals[0].substr(12)), 1.0, 1e-5);
  EXPECT_EQ(intervals[1].rfind("1.000,1.000,0.000000,HISTF", 0), 0u) << intervals[1];
  EXPECT_EQ(intervals[2].rfind("2.000,1.000,", 0), 0u) << intervals[2];
  EXPECT_NEAR(std::stod(intervals[2].substr(12)), 2.0, 1e-5);
}

TEST(LatencyLog, CsvKeepsItsRowsWithDropsCounted) {
  const FourRequests r;
  const std::string csv = latency_interval_csv(r.outcome, r.schedule);
  EXPECT_NE(csv.find("\n0,1,3,1,1,1,0,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("\n1,1,"), std::string::npos) << csv;  // a second with no sends has no row
  EXPECT_NE(csv.find("\n2,1,1,1,0,0,0,"), std::string::npos) << csv;
}

}  // namespace
}  // namespace quanta
