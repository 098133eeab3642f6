// Which way of receiving UDP datagrams costs the dispatcher's core least: recv per
// datagram, recvmmsg per batch (what src/net/udp_front_end.cc does), epoll then recvmmsg,
// and io_uring multishot recvmsg read from the completion ring (two ways of having the
// kernel's work run). For each: the cost of a poll that finds nothing (the dispatcher
// polls all the time) and the cost per datagram while a sender pinned to another CPU sends.
// Repetitions are interleaved method by method so that host noise hits every method alike;
// the JSON on stdout gives each run and the medians. docs/network.md reads the figures.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/tsc.h"
#include "quanta/wire.h"
#include "runtime/cpu_layout.h"
#include "udp_receive_run.h"
#include "udp_receivers.h"

namespace {

using quanta::bench::LoadRun;
using quanta::bench::RunSettings;

struct Options {
  RunSettings run;
  unsigned repetitions = 3;
  std::vector<std::string> methods = quanta::bench::receive_method_names();
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

double per_datagram_ns(uint64_t cycles, uint64_t datagrams) {
  return datagrams == 0 ? 0 : quanta::cycles_to_ns(cycles) / static_cast<double>(datagrams);
}

uint64_t busy_cycles(const LoadRun& r) {
  const uint64_t idle = r.empty_polls * r.median_empty_iteration_cycles;
  return r.loop_cycles > idle ? r.loop_cycles - idle : 0;
}

nlohmann::json run_json(double empty_poll_ns, const LoadRun& r) {
  nlohmann::json j{
      {"empty_poll_ns", empty_poll_ns},
      {"seconds", r.seconds},
      {"datagrams", r.received},
      {"datagrams_per_s", r.seconds > 0 ? r.received / r.seconds : 0},
      // Inside the calls that returned datagrams only.
      {"receive_ns_per_datagram", per_datagram_ns(r.data_cycles, r.received)},
      // The typical poll that returned datagrams, per datagram (robust to lost CPU).
      {"poll_ns_per_datagram", quanta::cycles_to_ns(1) * r.median_poll_cycles_per_datagram},
      // All the receiver's window but its empty iterations (counted at their median cost):
      // also what the kernel did on this CPU outside the calls (io_uring's task work), and
      // any time the thread lost its CPU.
      {"cpu_ns_per_datagram", per_datagram_ns(busy_cycles(r), r.received)},
      {"datagrams_per_poll", r.data_polls == 0 ? 0 : static_cast<double>(r.received) / r.data_polls},
      {"empty_polls", r.empty_polls},
      {"sent", r.sent},
      {"dropped", r.sent >= r.received_total ? r.sent - r.received_total : 0},
      {"kernel_drops_rxq_ovfl", r.kernel_drops ? nlohmann::json(*r.kernel_drops) : nlohmann::json(nullptr)},
      {"rearms", r.rearms}};
  return j;
}

// The medians of a method's runs, for each figure that has one.
nlohmann::json medians(const nlohmann::json& runs) {
  nlohmann::json out;
  for (const char* key : {"empty_poll_ns", "datagrams_per_s", "receive_ns_per_datagram", "poll_ns_per_datagram",
                          "cpu_ns_per_datagram",
                          "datagrams_per_poll", "dropped"}) {
    std::vector<double> v;
    for (const auto& r : runs) v.push_back(r[key].get<double>());
    out[std::string("median_") + key] = median(v);
  }
  uint64_t datagrams = 0;
  for (const auto& r : runs) datagrams += r["datagrams"].get<uint64_t>();
  out["datagrams"] = datagrams;
  out["runs"] = runs;
  return out;
}

void add_options(CLI::App& app, Options& o) {
  RunSettings& r = o.run;
  app.add_option("--seconds", r.seconds, "Timed receiving per method and repetition")
      ->check(CLI::Range(1e-3, 3600.0))
      ->capture_default_str();
  app.add_option("--repetitions", o.repetitions, "Rounds over every method (medians over these)")
      ->check(CLI::Range(1u, 1000u))
      ->capture_default_str();
  app.add_option("--methods", o.methods, "Comma-separated subset of: recv, recvmmsg, epoll_recvmmsg, io_uring, io_uring_coop")
      ->delimiter(',')
      ->check(CLI::IsMember(quanta::bench::receive_method_names()));
  app.add_option("--datagram-bytes", r.datagram_bytes, "Datagram size (a wire request header is 16 bytes)")
      ->check(CLI::Range(static_cast<uint32_t>(QUANTA_WIRE_REQUEST_HEADER), quanta::bench::kMaxDatagramBytes))
      ->capture_default_str();
  app.add_option("--rate-dps", r.send_rate_dps, "Datagrams per second the sender aims at; 0: as fast as it can")
      ->check(CLI::Range(0.0, 1e8))
      ->capture_default_str();
  app.add_option("--empty-poll-samples", r.empty_poll_samples,
                 "Samples of the empty poll, each timing " + std::to_string(quanta::bench::kPollsPerSample) + " polls")
      ->check(CLI::Range(1u, 10000000u))
      ->capture_default_str();
  app.add_option("--receiver-cpu", r.receiver_cpu, "CPU of the receiving loop (default: the first allowed)");
  app.add_option("--sender-cpu", r.sender_cpu, "CPU of the sender (default: the second allowed)");
}

// The CPUs: given ones must be allowed and distinct; by default the first two allowed.
void choose_cpus(CLI::App& app, RunSettings& r) {
  const std::vector<int> cpus = quanta::allowed_cpus();
  if (cpus.size() < 2) throw CLI::ValidationError("cpus", "needs two CPUs (a receiver and a sender)");
  const auto allowed = [&](int c) { return std::find(cpus.begin(), cpus.end(), c) != cpus.end(); };
  if (app.count("--receiver-cpu") == 0) r.receiver_cpu = cpus[0];
  if (app.count("--sender-cpu") == 0) r.sender_cpu = r.receiver_cpu == cpus[0] ? cpus[1] : cpus[0];
  if (!allowed(r.receiver_cpu)) throw CLI::ValidationError("--receiver-cpu", "CPU not in this process's affinity mask");
  if (!allowed(r.sender_cpu)) throw CLI::ValidationError("--sender-cpu", "CPU not in this process's affinity mask");
  if (r.receiver_cpu == r.sender_cpu) throw CLI::ValidationError("--sender-cpu", "must differ from --receiver-cpu");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Cost of receiving UDP datagrams on the dispatcher's core, by receive method (JSON on stdout)",
               "quanta-bench-udp-receive"};
  Options o;
  add_options(app, o);
  try {
    app.parse(argc, argv);
    choose_cpus(app, o.run);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "quanta-bench-udp-receive: %s\n", e.what());
    return 2;
  }

  std::map<std::string, nlohmann::json> runs;
  try {
    for (unsigned rep = 0; rep < o.repetitions; ++rep) {
      for (const std::string& method : o.methods) {
        RunSettings s = o.run;
        s.method = method;
        const double empty_ns = quanta::bench::measure_empty_poll_ns(s);
        runs[method].push_back(run_json(empty_ns, quanta::bench::measure_load(s)));
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quanta-bench-udp-receive: %s\n", e.what());
    return 1;
  }

  nlohmann::json out{{"bench", "udp_receive"},
                     {"datagram_bytes", o.run.datagram_bytes},
                     {"batch", quanta::bench::kReceiveBatch},
                     {"seconds_per_run", o.run.seconds},
                     {"repetitions", o.repetitions},
                     {"send_rate_dps", o.run.send_rate_dps},
                     {"empty_poll_samples", o.run.empty_poll_samples},
                     {"polls_per_empty_sample", quanta::bench::kPollsPerSample},
                     {"receiver_cpu", o.run.receiver_cpu},
                     {"sender_cpu", o.run.sender_cpu},
                     {"methods", nlohmann::json::object()}};
  for (const std::string& method : o.methods) out["methods"][method] = medians(runs[method]);
  std::cout << out.dump(2) << '\n';
  return 0;
}
