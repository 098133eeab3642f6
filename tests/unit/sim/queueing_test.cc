// The simulator against queueing theory. Each estimate's tolerance is z x SE, with SE from
// batch means over the run (kBatches consecutive batches of completions) and z = kZ; the
// seeds are fixed, so the tests are deterministic. Warm-up: the first 10% of arrivals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "batch_means.h"
#include "sim/engine.h"

namespace quanta {
namespace {

constexpr int kBatches = 40;
// Two-sided normal quantile for a 1e-4 false-alarm chance per assertion, were the seeds to
// change (with the fixed seeds the outcome is fixed).
constexpr double kZ = 3.9;

struct Case {
  std::string workload;
  unsigned workers;
  double load;
  std::string local;
  std::string dispatch;
  uint64_t jobs;
  double quantum_us = 2.0;
  std::string preempt = "clock";
};

testing::Collector run(const Case& k) {
  SimConfig c;
  c.run.workload = k.workload;
  c.run.workers = k.workers;
  c.run.load = k.load;
  c.run.local_policy = k.local;
  c.run.dispatch_policy = k.dispatch;
  c.run.quantum_us = k.quantum_us;
  c.run.preempt = k.preempt;
  c.run.task_slots = 65536;  // processor sharing must never turn a request away
  c.run.seed = 12345;
  c.jobs = k.jobs;
  testing::Collector collector;
  simulate(c, Workload::parse(k.workload), &collector);
  return collector;
}

void expect_within(const testing::Estimate& e, double theory, const char* what) {
  std::printf("  %s: simulated %.4f, SE %.4f, theory %.4f, |diff| = %.2f SE\n", what, e.value, e.se, theory,
              std::fabs(e.value - theory) / e.se);
  EXPECT_NEAR(e.value, theory, kZ * e.se) << what << ": simulated " << e.value << " +- " << e.se << " (SE), theory "
                                          << theory;
  // And the SE is small enough for the test to mean something.
  EXPECT_LT(e.se, 0.02 * theory) << what;
}

// M/M/1 FCFS: sojourn ~ Exp(mu - lambda): mean 1/(mu - lambda), p99 ln(100)/(mu - lambda).
TEST(Queueing, MM1FcfsMeanAndP99Sojourn) {
  const double rho = 0.7, mean_service_us = 1.0;
  testing::Collector c = run({"exp1", 1, rho, "fcfs", "jsq-msq", 4'000'000, 2.0, "none"});
  const double mean = mean_service_us / (1 - rho);
  expect_within(testing::batch_estimate(c.sojourn, kBatches, testing::mean_of), mean, "mean sojourn");
  expect_within(testing::batch_estimate(c.sojourn, kBatches, [](auto& xs) { return testing::quantile_of(xs, 0.99); }),
                std::log(100.0) * mean, "p99 sojourn");
}

double erlang_c(unsigned k, double a) {
  // Probability of waiting in M/M/k with offered load a = lambda/mu (a < k).
  double term = 1, sum = 0;
  for (unsigned n = 0; n < k; ++n) {
    sum += term;
    term *= a / (n + 1);
  }
  const double last = term * k / (k - a);  // a^k/k! * k/(k-a)
  return last / (sum + last);
}

// M/M/k FCFS, one central queue: E[W] = C(k, a) / (k mu - lambda).
TEST(Queueing, MMkErlangCMeanWait) {
  const unsigned k = 8;
  const double rho = 0.85, mu = 1.0;  // per µs
  const double lambda = rho * k * mu;
  testing::Collector c = run({"exp1", k, rho, "fcfs", "central", 4'000'000, 2.0, "none"});
  expect_within(testing::batch_estimate(c.wait, kBatches, testing::mean_of), erlang_c(k, lambda / mu) / (k * mu - lambda),
                "mean wait");
}

// M/D/1: E[W] = rho S / (2 (1 - rho)) (Pollaczek-Khinchine with zero service variance).
TEST(Queueing, MD1PollaczekKhinchineMeanWait) {
  const double rho = 0.8, s = 1.0;
  testing::Collector c = run({"fixed1", 1, rho, "fcfs", "jsq-msq", 3'000'000, 2.0, "none"});
  expect_within(testing::batch_estimate(c.wait, kBatches, testing::mean_of), rho * s / (2 * (1 - rho)), "mean wait");
}

// M/G/1 processor sharing: E[T] = E[S] / (1 - rho) whatever the service distribution
// (insensitivity). Round robin with a quantum 1/50 of the shortest service stands for PS.
TEST(Queueing, MG1ProcessorSharingExponential) {
  const double rho = 0.7;
  testing::Collector c = run({"exp1", 1, rho, "ps", "jsq-msq", 2'000'000, 0.02});
  expect_within(testing::batch_estimate(c.sojourn, kBatches, testing::mean_of), 1.0 / (1 - rho), "mean sojourn");
}

TEST(Queueing, MG1ProcessorSharingBimodalIsInsensitive) {
  // 90% 0.5 µs, 10% 5.5 µs: mean 1 µs, squared coefficient of variation 2.25. FCFS would
  // wait (1 + 2.25)/2 x rho/(1 - rho) = 3.79 µs; PS gives E[S]/(1-rho) = 3.33 µs sojourn.
  const double rho = 0.7;
  testing::Collector c = run({"bimodal:90:0.5:5.5", 1, rho, "ps", "jsq-msq", 2'000'000, 0.01});
  expect_within(testing::batch_estimate(c.sojourn, kBatches, testing::mean_of), 1.0 / (1 - rho), "mean sojourn");
}

// PS's conditional mean is linear in the size: E[T | S = x] = x / (1 - rho).
TEST(Queueing, MG1ProcessorSharingSlowdownIsFlat) {
  const double rho = 0.6;
  SimConfig c;
  c.run.workload = "bimodal:90:0.5:5.5";
  c.run.workers = 1;
  c.run.load = rho;
  c.run.quantum_us = 0.01;
  c.run.task_slots = 65536;
  c.jobs = 1'000'000;
  const SimResult r = simulate(c, Workload::parse(c.run.workload));
  for (const ClassStats& k : r.run.classes) {
    EXPECT_NEAR(k.slowdown_milli.mean() / 1000, 1 / (1 - rho), 0.05 / (1 - rho));
  }
}

}  // namespace
}  // namespace quanta
