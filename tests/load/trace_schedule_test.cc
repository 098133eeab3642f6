// The trace reader of `quanta load --arrivals-file`: what a line becomes, and the cap on
// requests (too large to reach from the command line in a test).
#include "load/trace_schedule.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

namespace quanta {
namespace {

std::vector<Arrival> read(const std::string& text, std::size_t cap = kMaxTraceRequests) {
  std::istringstream in(text);
  return read_trace_schedule(in, "t", Workload::parse("extreme-bimodal"), 1, cap);
}

std::string error_of(const std::string& text, std::size_t cap = kMaxTraceRequests) {
  try {
    read(text, cap);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(TraceSchedule, LinesBecomeArrivalsInNsWithTheirClassesServiceTimes) {
  const auto s = read("0.5 short\n# c\n\n  2 long  # tail\n2 1\n");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].arrival_ns, 500u);
  EXPECT_EQ(s[0].class_index, 0u);
  EXPECT_EQ(s[0].service_ns, 500u);  // extreme-bimodal's short class: 0.5 us
  EXPECT_EQ(s[1].arrival_ns, 2000u);
  EXPECT_EQ(s[1].class_index, 1u);
  EXPECT_EQ(s[1].service_ns, 500000u);
  EXPECT_EQ(s[2].class_index, 1u);
}

TEST(TraceSchedule, UnclassedLinesDrawAsTheSeedsPoissonScheduleDoes) {
  const Workload w = Workload::parse("extreme-bimodal");
  std::string text;
  for (int i = 0; i < 200; ++i) text += std::to_string(i) + "\n";
  const auto trace = read(text);
  const auto poisson = make_poisson_schedule(w, {1e6, 1.0, 1});
  ASSERT_GE(poisson.size(), trace.size());
  for (std::size_t i = 0; i < trace.size(); ++i) {
    EXPECT_EQ(trace[i].class_index, poisson[i].class_index) << i;
    EXPECT_EQ(trace[i].service_ns, poisson[i].service_ns) << i;
  }
}

TEST(TraceSchedule, MoreRequestsThanTheCapIsAnErrorAtTheFirstLineOver) {
  EXPECT_EQ(read("0\n1\n", 2).size(), 2u);
  EXPECT_EQ(error_of("0\n# c\n1\n2\n", 2), "t:4: more than 2 requests; split the trace");
}

TEST(TraceSchedule, ErrorsNameTheLine) {
  EXPECT_EQ(error_of("1\n0\n").rfind("t:2: send time 0 us is before", 0), 0u);
  EXPECT_EQ(error_of("inf\n"), "t:1: 'inf' is not a send time (a number of microseconds)");
  EXPECT_EQ(error_of("1e13\n"), "t:1: send time 1e13 us is beyond 1e12 us");
  EXPECT_EQ(error_of(""), "t: no send times (only blank lines or comments)");
}

}  // namespace
}  // namespace quanta
