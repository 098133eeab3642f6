// quanta-bench-probes: probe density, overhead and yield timing of the pass's modes on
// the kernel suite (bench/kernels/*.c). For each kernel it runs the clock, flag and counter
// builds (interleaved, --runs processes each), checks that every build computes the plain
// build's checksum, and reports static and executed probe counts and, under the
// preemptible-function runtime, how far each yield lands from the target quantum.
//
// Overhead on this VM is a noisy quantity: the host slows a whole process by up to 2x now
// and then, and where a process's pages land moves memory-bound kernels by several percent
// for the life of the process. Separate plain and instrumented processes therefore
// disagreed by up to 20 points on one kernel from one session to the next. So each timed
// build carries the kernel's plain twin, and one process times kPairsPerProcess pairs,
// plain and instrumented back to back (harness.c). A process's overhead is the median of
// its pairs' ratios, a kernel's the median over processes (a plain-against-plain twin
// measures within about 1% this way). Yield timing is taken from the median-MAE one of
// three runs.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#ifndef QUANTA_KERNEL_DIR
#define QUANTA_KERNEL_DIR "."
#endif

using nlohmann::json;

namespace {

const std::vector<std::string> kAllKernels = {
    "matmul", "lu", "cholesky", "fft", "radix_sort", "kmeans", "pca", "histogram",
    "string_match", "word_count", "linear_regression", "hash_lookup", "pointer_chase", "nbody"};
const std::vector<std::string> kAllModes = {"clock", "flag", "counter"};
constexpr int kPairsPerProcess = 6;
// Yield timing of one process moves with the host too (the same build's MAE ranges over 2x
// from one process to the next on the dev VM): each build's timing run is repeated and
// the run with the median MAE reported.
constexpr int kTimingRuns = 3;

struct Options {
  std::string format = "text";
  int runs = 5;
  double quantum_us = 2.0;
  std::string dir = QUANTA_KERNEL_DIR;
  std::vector<std::string> kernels = kAllKernels;
  std::vector<std::string> modes = kAllModes;
};

void usage(FILE* f) {
  std::fprintf(f,
               "usage: quanta-bench-probes [options]\n"
               "  --format json|text   output format (default text)\n"
               "  --runs N             processes per build, interleaved (default 5, min 5); each\n"
               "                       times 6 pairs of runs, the plain twin and the build\n"
               "  --quantum-us US      target quantum for the yield-timing run (default 2)\n"
               "  --kernels a,b,...    subset of: ");
  for (auto& k : kAllKernels) std::fprintf(f, "%s ", k.c_str());
  std::fprintf(f,
               "\n  --modes a,b,...      subset of: clock flag counter\n"
               "  --kernel-dir DIR     where the kernel builds are (default %s)\n"
               "  --help               this text\n",
               QUANTA_KERNEL_DIR);
}

[[noreturn]] void bad(const std::string& opt, const std::string& why) {
  std::fprintf(stderr, "quanta-bench-probes: %s: %s (see --help)\n", opt.c_str(), why.c_str());
  std::exit(2);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> pickSubset(const std::string& opt, const std::string& value,
                                    const std::vector<std::string>& all) {
  auto items = split(value);
  if (items.empty()) bad(opt, "empty list");
  for (auto& it : items)
    if (std::find(all.begin(), all.end(), it) == all.end()) bad(opt, "unknown name '" + it + "'");
  return items;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) bad(a, "missing value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--format") {
      o.format = value();
      if (o.format != "json" && o.format != "text") bad(a, "expected json or text, got '" + o.format + "'");
    } else if (a == "--runs") {
      std::string v = value();
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (*end || n < 5 || n > 100) bad(a, "expected an integer from 5 to 100, got '" + v + "'");
      o.runs = int(n);
    } else if (a == "--quantum-us") {
      std::string v = value();
      char* end = nullptr;
      double q = std::strtod(v.c_str(), &end);
      if (*end || q < 0.1 || q > 1000) bad(a, "expected microseconds in [0.1, 1000], got '" + v + "'");
      o.quantum_us = q;
    } else if (a == "--kernels") {
      o.kernels = pickSubset(a, value(), kAllKernels);
    } else if (a == "--modes") {
      o.modes = pickSubset(a, value(), kAllModes);
    } else if (a == "--kernel-dir") {
      o.dir = value();
    } else {
      bad(a, "unknown option");
    }
  }
  return o;
}

// Runs one kernel build and parses its JSON line.
json runBuild(const Options& o, const std::string& kernel, const std::string& variant,
              const std::string& args) {
  std::string path = o.dir + "/" + kernel + "-" + variant;
  std::string cmd = "'" + path + "' " + args;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    std::fprintf(stderr, "quanta-bench-probes: cannot run %s\n", path.c_str());
    std::exit(1);
  }
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int rc = pclose(p);
  if (rc != 0 || out.empty()) {
    std::fprintf(stderr, "quanta-bench-probes: %s failed (status %d); is the kernel suite built?\n",
                 path.c_str(), rc);
    std::exit(1);
  }
  return json::parse(out);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  json report;
  report["config"] = {{"runs", o.runs},
                      {"quantum_us", o.quantum_us},
                      {"kernel_dir", o.dir},
                      {"statistic", "per process the median ratio of " + std::to_string(kPairsPerProcess) +
                                        " plain/instrumented pairs run in turn; median over interleaved "
                                        "processes; and the ratio of the fastest runs; yield timing from "
                                        "the run with the median MAE of 3"},
                      {"kernels", o.kernels},
                      {"modes", o.modes}};
  json kernels = json::array();
  std::map<std::string, std::vector<double>> overheads, fastestOverheads, maes, p99ratio, preempted;
  bool allMatch = true;
  auto fastest = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };

  for (const auto& k : o.kernels) {
    if (o.format == "text") std::fprintf(stderr, "running %s...\n", k.c_str());
    // Interleave the builds round by round so that slow stretches of the host spread over
    // all of them.
    std::map<std::string, std::vector<double>> ratios, cycles, plainCycles;
    std::vector<double> allPlain;  // every mode's twin runs: the kernel's plain figures
    std::map<std::string, json> last;
    for (int r = 0; r < o.runs; r++) {
      for (const std::string& m : o.modes) {
        json j = runBuild(o, k, m, "--runs " + std::to_string(kPairsPerProcess));
        auto runs = j["run_cycles"].get<std::vector<double>>();
        auto plain = j["plain_run_cycles"].get<std::vector<double>>();
        std::vector<double> pairRatios;
        for (size_t i = 0; i < runs.size(); i++) pairRatios.push_back(runs[i] / plain[i]);
        ratios[m].push_back(median(pairRatios));
        cycles[m].insert(cycles[m].end(), runs.begin(), runs.end());
        plainCycles[m].insert(plainCycles[m].end(), plain.begin(), plain.end());
        allPlain.insert(allPlain.end(), plain.begin(), plain.end());
        last[m] = j;
      }
    }
    const json plainSum = last[o.modes.front()]["plain_checksum"];
    double base = median(allPlain);
    json entry = {{"kernel", k},
                  {"checksum", plainSum},
                  {"plain_median_cycles", base},
                  {"plain_min_cycles", fastest(allPlain)}};
    for (const auto& m : o.modes) {
      // The counting build also runs under preemption: adaptive clock probes fire more
      // often near a deadline, so probes per quantum is part of what preemption costs.
      json counted = runBuild(o, k, m + "-count", "--runs 0 --timing-us " + std::to_string(o.quantum_us));
      std::vector<json> timings;
      for (int r = 0; r < kTimingRuns; r++)
        timings.push_back(runBuild(o, k, m, "--runs 0 --timing-us " + std::to_string(o.quantum_us)));
      std::sort(timings.begin(), timings.end(), [](const json& a, const json& b) {
        return a["timing"]["mae_cycles"].get<double>() < b["timing"]["mae_cycles"].get<double>();
      });
      const json& timed = timings[kTimingRuns / 2];
      json maeRuns = json::array();
      for (const json& tj : timings) maeRuns.push_back(tj["timing"]["mae_cycles"]);
      bool match = last[m]["checksum"] == plainSum && last[m]["plain_checksum"] == plainSum &&
                   counted["checksum"] == plainSum;
      for (const json& tj : timings) match = match && tj["checksum"] == plainSum;
      allMatch = allMatch && match;
      double ovh = 100.0 * (median(ratios[m]) - 1.0);
      // Beside the median: the fastest instrumented run against the fastest plain one of the
      // same processes (host noise only ever adds time).
      double ovhMin = 100.0 * (fastest(cycles[m]) / fastest(plainCycles[m]) - 1.0);
      json perProcess = json::array();
      for (double x : ratios[m]) perProcess.push_back(100.0 * (x - 1.0));
      const json& t = timed["timing"];
      double quantum = t["quantum_cycles"].get<double>();
      json mj = {{"static_probes", last[m]["static_probes"]},
                 {"executed_probes", counted["executed_probes"]},
                 {"median_cycles", median(cycles[m])},
                 {"overhead_pct", ovh},
                 {"overhead_pct_per_process", perProcess},
                 {"min_cycles", fastest(cycles[m])},
                 {"overhead_of_fastest_pct", ovhMin},
                 {"checksum_matches_plain", match},
                 {"timing", t},
                 {"mae_cycles_of_timing_runs", maeRuns}};
      // The whole kernel under preemption (every quantum at its mean interval, switches
      // included) against the plain run: what probes cost when deadlines are near.
      if (t["yields"].get<double>() > 0) {
        double quanta = t["yields"].get<double>() + t["os_disturbed"].get<double>() + 1;
        mj["preempted_over_plain_pct"] = 100.0 * (quanta * t["mean_interval_cycles"].get<double>() / base - 1.0);
        preempted[m].push_back(mj["preempted_over_plain_pct"].get<double>());
      }
      const json& ct = counted["timing"];
      if (ct.contains("probes_executed") && ct["yields"].get<double>() > 0)
        mj["probes_per_quantum"] = ct["probes_executed"].get<double>() / ct["quanta"].get<double>();
      entry["modes"][m] = mj;
      overheads[m].push_back(ovh);
      fastestOverheads[m].push_back(ovhMin);
      if (t["yields"].get<double>() > 0) {
        maes[m].push_back(t["mae_cycles"].get<double>());
        p99ratio[m].push_back(t["p99_interval_cycles"].get<double>() / quantum);
      }
    }
    kernels.push_back(entry);
  }
  report["kernels"] = kernels;

  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0.0 : s / double(v.size());
  };
  auto maxOf = [](const std::vector<double>& v) {
    return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
  };
  for (const auto& m : o.modes)
    report["summary"][m] = {{"mean_overhead_pct", mean(overheads[m])},
                            {"max_overhead_pct", maxOf(overheads[m])},
                            {"mean_overhead_of_fastest_pct", mean(fastestOverheads[m])},
                            {"max_overhead_of_fastest_pct", maxOf(fastestOverheads[m])},
                            {"mean_mae_cycles", mean(maes[m])},
                            {"max_mae_cycles", maxOf(maes[m])},
                            {"mean_p99_over_quantum", mean(p99ratio[m])},
                            {"mean_preempted_over_plain_pct", mean(preempted[m])},
                            {"max_p99_over_quantum", maxOf(p99ratio[m])}};
  report["summary"]["checksums_match"] = allMatch;
  report["targets"] = {{"clock_mean_overhead_pct", 3},  {"clock_max_overhead_pct", 10},
                       {"flag_mean_overhead_pct", 1},   {"clock_mae_cycles", 300},
                       {"p99_interval_over_quantum", 1.5}};

  if (o.format == "json") {
    std::printf("%s\n", report.dump(2).c_str());
  } else {
    std::printf("quanta-bench-probes: runs=%d (median), quantum=%.2f us\n", o.runs, o.quantum_us);
    std::printf("%-18s %-8s %8s %12s %9s %9s %9s %10s %8s %6s\n", "kernel", "mode", "static", "executed",
                "overhead", "fastest", "MAE(cyc)", "p99/quant", "probes/q", "sum-ok");
    for (const auto& e : report["kernels"])
      for (const auto& m : o.modes) {
        const json& mj = e["modes"][m];
        std::printf("%-18s %-8s %8lld %12lld %8.2f%% %8.2f%% %9.0f %10.2f %8.1f %6s\n",
                    e["kernel"].get<std::string>().c_str(), m.c_str(),
                    mj["static_probes"].get<long long>(), mj["executed_probes"].get<long long>(),
                    mj["overhead_pct"].get<double>(), mj["overhead_of_fastest_pct"].get<double>(),
                    mj["timing"]["mae_cycles"].get<double>(),
                    mj["timing"]["p99_interval_cycles"].get<double>() /
                        mj["timing"]["quantum_cycles"].get<double>(),
                    mj.value("probes_per_quantum", 0.0),
                    mj["checksum_matches_plain"].get<bool>() ? "yes" : "NO");
      }
    for (const auto& m : o.modes) {
      const json& s = report["summary"][m];
      std::printf("%-8s mean overhead %6.2f%%  max %6.2f%%  (fastest runs: mean %6.2f%%  max %6.2f%%)  mean MAE %7.0f cycles  max p99/quantum %.2f\n",
                  m.c_str(), s["mean_overhead_pct"].get<double>(), s["max_overhead_pct"].get<double>(),
                  s["mean_overhead_of_fastest_pct"].get<double>(), s["max_overhead_of_fastest_pct"].get<double>(),
                  s["mean_mae_cycles"].get<double>(), s["max_p99_over_quantum"].get<double>());
    }
    std::printf("checksums match: %s\n", allMatch ? "yes" : "NO");
  }
  return allMatch ? 0 : 1;
}
