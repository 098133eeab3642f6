#include "load_options.h"

#include "finite_number.h"
#include "run_options.h"
#include "shared_checks.h"
#include "io/workload.h"
#include "load/target.h"
#include "runtime/cpu_layout.h"

namespace quanta {

void add_load_options(CLI::App& cmd, LoadOptions& o) {
  cmd.add_option("--target", o.target, "Where to send: udp://HOST:PORT or tcp://HOST:PORT (the wire protocol of "
                                        "include/quanta/wire.h)")
      ->required()
      ->check([](const std::string& text) {
        // Parsing resolves the host too: an unknown one is a usage error, before any run.
        try {
          parse_target(text);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      });
  auto* connections = cmd.add_option("--connections", o.connections, "TCP connections; requests go round robin over them, pipelined")
      ->capture_default_str()
      ->check(CLI::Range(1u, 4096u));
  auto* load = cmd.add_option("--load", o.load,
                              "Offered load as a fraction of one worker's capacity: rate = L / mean service time "
                              "of the workload")
                   ->capture_default_str()
                   ->check(finite_number())
                   ->check(positive_number());
  auto* rate = cmd.add_option("--rate-rps", o.rate_rps, "Offered rate in requests per second (instead of --load)")
                   ->check(finite_number())
                   ->check(positive_number());
  load->excludes(rate);
  rate->excludes(load);
  add_rate_profile_option(cmd, o.rate_profile);
  add_workload_shift_option(cmd, o.workload_shift);
  auto* duration = cmd.add_option("--duration-s", o.duration_s, "Seconds of sends")
      ->capture_default_str()
      ->check(finite_number())
      ->check(positive_number())
      ->check(at_most(1e9, "send times are whole ns in 64 bits"));
  cmd.add_option("--warmup-frac", o.warmup_frac, "Fraction of the run (by intended send time) left out of the statistics")
      ->capture_default_str()
      ->check(finite_number())
      ->check(CLI::Range(0.0, 0.99));
  cmd.add_option("--seed", o.seed, "Seed of the send schedule and the request builder")
      ->capture_default_str()
      ->check(seed_error);
  auto* workload = cmd.add_option("--workload", o.workload,
                                  "Service times the requests ask for (as quanta run): extreme-bimodal, high-bimodal, "
                                  "exp1, fixed1, tpcc, fixed:X, exp:MEAN, bimodal:P:A:B, lognormal:MEAN:SIGMA (us)")
                       ->capture_default_str()
                       ->check(workload_spec_error);
  cmd.add_option("--app", o.app_path,
                 "The app whose make_request builds the payloads: a shared object exporting QUANTA_APP_EXPORT(app); "
                 "default the built-in spin app (8 bytes: the service time in cycles)")
      ->check(app_path_error);
  cmd.add_option("--app-config", o.app_config, "A string handed to the app's setup() in this process");
  cmd.add_option("--max-payload-bytes", o.max_payload_bytes, "Largest payload make_request may build")
      ->capture_default_str()
      ->check(CLI::Range(8u, 60000u));
  auto* arrivals = cmd.add_option("--arrivals", o.arrivals, "Send times: poisson (exponential gaps) or constant")
                       ->capture_default_str()
                       ->check(CLI::IsMember({"poisson", "constant"}));
  // A trace gives the send times itself: a rate, a load, a duration or a process to draw
  // them with would be ignored, so combining them is refused rather than half-honoured.
  cmd.add_option("--arrivals-file", o.arrivals_file,
                 "Send times from a text file instead of drawn: per line the send time in us from the start "
                 "(non-decreasing), optionally a class name or index; # comments (docs/load.md)")
      ->check([](const std::string& path) {
        return path.empty() ? std::string("must name a file") : std::string();
      })
      ->excludes(arrivals)
      ->excludes(rate)
      ->excludes(load)
      ->excludes(duration);
  cmd.add_option("--timeout-ms", o.timeout_ms,
                 "A request with no reply this long after it was sent counts as dropped (infinite latency)")
      ->capture_default_str()
      ->check(finite_number())
      ->check(CLI::Range(0.001, 3.6e6));
  cmd.add_option("--format", o.format, "Output: text or json")->capture_default_str()->check(CLI::IsMember({"text", "json"}));
  cmd.add_option("--latency-log", o.latency_log,
                 "Write an interval log here, one interval per second of the run: by default HdrHistogram's interval "
                 "log of the answered requests' latencies in ns (docs/load.md)")
      ->check([](const std::string& path) {
        return path.empty() ? std::string("must name a file") : std::string();
      });
  cmd.add_option("--latency-log-format", o.latency_log_format,
                 "The --latency-log's format: hdr (HdrHistogram's interval log, for its tools and plotters) or csv "
                 "(per-second counts, drops included, and percentiles in us)")
      ->capture_default_str()
      ->check(CLI::IsMember({"hdr", "csv"}));
  const std::vector<int> cpus = allowed_cpus();
  cmd.add_option("--cpu", o.cpu,
                 "CPU the client's thread is pinned to (default: the first one this process may use, " +
                     std::to_string(cpus.empty() ? 0 : cpus.front()) +
                     " here: the CPU a quanta server's dispatcher takes by default, so the workers keep theirs)")
      ->check([cpus](const std::string& text) {
        try {
          const int cpu = std::stoi(text);
          for (int c : cpus) {
            if (c == cpu) return std::string();
          }
        } catch (const std::exception&) {
        }
        std::string list;
        for (int c : cpus) list += (list.empty() ? "" : ", ") + std::to_string(c);
        return "'" + text + "' is not a CPU this process may use (" + list + ")";
      });
  cmd.add_option("--wait", o.wait,
                 "Between sends: spin on the cycle counter (precise sends, but the client takes its CPU), or block in "
                 "the kernel until a reply comes or the next send is 50 us away (leaves the CPU to a server sharing "
                 "it; sends may be later)")
      ->capture_default_str()
      ->check(CLI::IsMember({"spin", "block"}));
  cmd.add_flag_callback("--progress", [&o] { o.progress = true; },
                        "A progress line per second on stderr (default: on when stderr is a terminal and the run "
                        "lasts over 3 s)");
  cmd.add_flag_callback("--no-progress", [&o] { o.progress = false; }, "No progress lines");
  cmd.final_callback([&o, workload, connections] {
    o.workload_given = workload->count() > 0;
    // UDP has no connections: saying how many is a mistake worth pointing out.
    if (connections->count() > 0 && o.target.rfind("udp://", 0) == 0) {
      throw CLI::ValidationError("--connections", "is for tcp:// targets; over UDP every request is one datagram");
    }
  });
}

}  // namespace quanta
