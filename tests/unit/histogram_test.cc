#include "stats/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "policy/rng.h"
#include "stats/request_recorder.h"

namespace quanta {
namespace {

// The exact percentile by the same rank rule the histogram documents.
uint64_t exact_percentile(std::vector<uint64_t> sorted, double p) {
  const auto rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(p / 100.0 * sorted.size())));
  return sorted[rank - 1];
}

TEST(Histogram, BucketsCoverTheRangeContiguously) {
  for (std::size_t i = 0; i + 1 < Histogram::bucket_count(); ++i) {
    ASSERT_EQ(Histogram::bucket_low(i) + Histogram::bucket_width(i), Histogram::bucket_low(i + 1)) << i;
  }
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{2047}, uint64_t{2048}, uint64_t{2049}, uint64_t{123456789}, Histogram::kMaxValue}) {
    const std::size_t b = Histogram::bucket_of(v);
    EXPECT_LE(Histogram::bucket_low(b), v);
    EXPECT_LT(v, Histogram::bucket_low(b) + Histogram::bucket_width(b));
  }
}

TEST(Histogram, PercentilesMatchAnExactSortToThreeDigits) {
  Rng rng(7);
  Histogram h;
  std::vector<uint64_t> values;
  for (int i = 0; i < 200'000; ++i) {
    // Log-uniform over 1 ns .. 10 s: every bucket size is exercised.
    const auto v = static_cast<uint64_t>(std::exp(rng.unit_open_zero() * std::log(1e10)));
    values.push_back(v);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  for (double p : {0.1, 1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    const double exact = static_cast<double>(exact_percentile(values, p));
    const double got = static_cast<double>(h.value_at_percentile(p));
    EXPECT_LE(std::abs(got - exact), exact / 1000.0 + 1) << "p" << p << " exact " << exact << " got " << got;
  }
  EXPECT_EQ(h.count(), values.size());
  EXPECT_EQ(h.max(), values.back());
  EXPECT_EQ(h.min(), values.front());
}

TEST(Histogram, CountsAboveAValue) {
  Histogram h;
  for (uint64_t v = 1; v <= 10000; ++v) h.record(v);
  EXPECT_EQ(h.count_above(10000), 0u);
  EXPECT_EQ(h.count_above(0), 10000u);
  EXPECT_EQ(h.count_above(1000), 9000u);  // exact below 2048
  // Above 2048 a bucket is counted whole once its low end is past the value.
  EXPECT_NEAR(static_cast<double>(h.count_above(5000)), 5000.0, 5000.0 / 1024 + 1);
}

TEST(Histogram, MergeEqualsRecordingEverythingInOne) {
  Histogram a, b, all;
  for (uint64_t v = 1; v < 100000; v += 7) {
    (v % 2 ? a : b).record(v);
    all.record(v);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  for (double p : {50.0, 99.0, 99.9}) EXPECT_EQ(a.value_at_percentile(p), all.value_at_percentile(p));
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
}

TEST(Histogram, ClampsValuesAboveTheRangeButKeepsTheMax) {
  Histogram h;
  h.record(Histogram::kMaxValue * 3);
  EXPECT_EQ(h.overflow(), 1u);
  EXPECT_EQ(h.max(), Histogram::kMaxValue * 3);
  EXPECT_EQ(h.value_at_percentile(50), h.max());
  EXPECT_EQ(Histogram().value_at_percentile(99), 0u);
}

}  // namespace
}  // namespace quanta

namespace quanta {
namespace {

// The stall-free subset is kept as every request less the touched ones (RequestRecorder):
// it must be what recording only the untouched requests would have given, to the count,
// the sum, the extremes and every bucket.
TEST(Histogram, RemovingASubsetLeavesWhatTheRestWouldHaveRecorded) {
  Rng rng(11);
  Histogram all, part, rest;
  uint64_t rest_min = UINT64_MAX, rest_max = 0;
  for (int i = 0; i < 20000; ++i) {
    // Exact small values, log-spread large ones, and some past the top (overflow).
    const uint64_t v = i % 3 == 0 ? static_cast<uint64_t>(std::exp(rng.unit_open_zero() * std::log(2e10)))
                                  : rng.next() % 5000;
    all.record(v);
    if (i % 7 == 0) {
      part.record(v);
    } else {
      rest.record(v);
      rest_min = std::min(rest_min, v);
      rest_max = std::max(rest_max, v);
    }
  }
  all.remove(part, rest_min, rest_max);
  EXPECT_EQ(all.count(), rest.count());
  EXPECT_EQ(all.min(), rest.min());
  EXPECT_EQ(all.max(), rest.max());
  EXPECT_EQ(all.mean(), rest.mean());
  EXPECT_EQ(all.overflow(), rest.overflow());
  for (const double p : {0.0, 50.0, 99.0, 99.9, 100.0}) EXPECT_EQ(all.value_at_percentile(p), rest.value_at_percentile(p)) << p;
  EXPECT_EQ(all.count_above(1000), rest.count_above(1000));
  // Everything removed: empty, whatever extremes are given.
  Histogram one;
  one.record(42);
  one.remove(one, 7, 9);
  EXPECT_EQ(one.count(), 0u);
  EXPECT_EQ(one.min(), 0u);
  EXPECT_EQ(one.max(), 0u);
}

// The recorder's stall-free statistics, now derived, equal those of a recorder that saw
// only the untouched requests: every histogram, the preemptions and the slowdown bases.
TEST(RequestRecorder, TheUntouchedSubsetIsWhatRecordingOnlyItWouldGive) {
  Rng rng(5);
  RequestRecorder recorder(2, 1.0), only_untouched(2, 1.0);
  for (int i = 0; i < 5000; ++i) {
    const uint64_t arrival = rng.next() % 1000;
    FinishedTimes t{.arrival = arrival,
                    .finish = arrival + 1 + rng.next() % 2'000'000,
                    .cpu = rng.next() % 3 == 0 ? 0 : 1 + rng.next() % 50'000,
                    .nominal_service_ns = i % 2 == 0 ? static_cast<uint32_t>(1 + rng.next() % 10'000) : 0u,
                    .class_index = static_cast<uint32_t>(i % 2),
                    .preemptions = static_cast<uint32_t>(rng.next() % 4),
                    .measured = i % 11 != 0,
                    .stall_touched = i % 5 == 0};
    recorder.record(t);
    if (!t.stall_touched) only_untouched.record(t);
  }
  const ClassStatsSet got = recorder.untouched();
  const ClassStatsSet& want = only_untouched.classes();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t c = 0; c < got.size(); ++c) {
    SCOPED_TRACE(c);
    EXPECT_GT(got[c].sojourn_ns.count(), 0u);
    EXPECT_LT(got[c].sojourn_ns.count(), recorder.classes()[c].sojourn_ns.count());
    for (const auto member : {&ClassStats::sojourn_ns, &ClassStats::cpu_ns, &ClassStats::slowdown_milli}) {
      const Histogram& g = got[c].*member;
      const Histogram& w = want[c].*member;
      EXPECT_EQ(g.count(), w.count());
      EXPECT_EQ(g.min(), w.min());
      EXPECT_EQ(g.max(), w.max());
      EXPECT_EQ(g.mean(), w.mean());
      for (const double p : {50.0, 99.0, 99.9}) EXPECT_EQ(g.value_at_percentile(p), w.value_at_percentile(p));
    }
    EXPECT_EQ(got[c].preemptions, want[c].preemptions);
    EXPECT_EQ(got[c].slowdown_on_nominal, want[c].slowdown_on_nominal);
    EXPECT_EQ(got[c].slowdown_on_cpu, want[c].slowdown_on_cpu);
  }
  // Asking twice gives the same: the recorder keeps every request's statistics as they were.
  EXPECT_EQ(recorder.untouched()[0].sojourn_ns.count(), got[0].sojourn_ns.count());
}

}  // namespace
}  // namespace quanta
