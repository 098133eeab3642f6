#include "serve_command.h"

#include <signal.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "app_choice.h"
#include "core/tsc.h"
#include "experiment/in_process_run.h"
#include "experiment/report.h"
#include "linux_runtime/kernel_thread_report.h"
#include "linux_runtime/kernel_thread_server.h"
#include "linux_runtime/thread_pool_run.h"
#include "net/io_uring_unavailable.h"
#include "net/net_counters.h"
#include "net/tcp_front_end.h"
#include "net/udp_front_end.h"
#include "net/wire_format.h"
#include "run_command.h"
#include "runtime/cpu_layout.h"
#include "runtime/runtime.h"

namespace quanta {
namespace {

// The signals the server acts on. They are blocked in every thread (the runtime's threads
// inherit the mask from this one) and taken synchronously by the main thread with
// sigtimedwait, so no handler runs in the middle of a worker's quantum and nothing but the
// main thread ever sees them.
sigset_t serve_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGUSR1);
  return set;
}

// The classes requests may name: the app's own, else those of --workload.
Workload serve_workload(const AppChoice& apps, const ServeOptions& options) {
  return apps.workload(options.workload, options.workload_given);
}

// Waits for SIGINT/SIGTERM or the end of --duration-s; prints a snapshot of the network
// counters on stderr at each SIGUSR1 meanwhile.
void wait_for_stop(const ServeOptions& options, const NetCounters& counters) {
  const sigset_t signals = serve_signals();
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline =
      options.duration_s
          ? Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*options.duration_s))
          : Clock::time_point::max();
  for (;;) {
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return;
    // Wake at least every 100 ms so that the deadline is kept without a timer.
    const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::min<Clock::duration>(deadline - now, std::chrono::milliseconds(100)));
    const timespec wait{0, static_cast<long>(left.count())};
    const int sig = sigtimedwait(&signals, nullptr, &wait);
    if (sig == SIGINT || sig == SIGTERM) {
      std::fprintf(stderr, "quanta serve: %s: finishing the requests in flight\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
      return;
    }
    if (sig == SIGUSR1) {
      const nlohmann::json snapshot{{"network", counters.to_json()}};
      std::fprintf(stderr, "%s\n", snapshot.dump().c_str());
    }
  }
}

// The network counters under the text table: one line a transport, counters that are not
// zero (a quiet server prints "nothing").
std::string network_text(const nlohmann::json& network) {
  std::string out = "network\n";
  for (const auto& [transport, counters] : network.items()) {
    std::string line;
    for (const auto& [name, value] : counters.items()) {
      if (value.get<uint64_t>() == 0) continue;
      line += "  " + name + " " + std::to_string(value.get<uint64_t>());
    }
    out += "  " + transport + ":" + (line.empty() ? std::string(" nothing") : line) + "\n";
  }
  return out;
}

// While the runtime finishes what is in flight (a handler may never end: the spin app
// spins as long as its payload says), a second SIGINT/SIGTERM ends the process at once,
// without statistics, exit 1; SIGUSR1 still prints the counters.
class DrainWatch {
 public:
  explicit DrainWatch(const NetCounters& counters)
      : thread_([this, &counters] {
          const sigset_t signals = serve_signals();
          const timespec wait{0, 50'000'000};
          while (!done_.load(std::memory_order_acquire)) {
            const int sig = sigtimedwait(&signals, nullptr, &wait);
            if (sig == SIGINT || sig == SIGTERM) {
              std::fprintf(stderr, "quanta serve: second signal: exiting without waiting for the requests in flight\n");
              std::_Exit(1);
            }
            if (sig == SIGUSR1) {
              const nlohmann::json snapshot{{"network", counters.to_json()}};
              std::fprintf(stderr, "%s\n", snapshot.dump().c_str());
            }
          }
        }) {}
  ~DrainWatch() {
    done_.store(true, std::memory_order_release);
    thread_.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// The runtime a server runs on: quanta's (dispatcher and pinned workers) or, with
// --runtime linux, the kernel-thread baseline's. Both take the same sources, start, and
// stop by closing them and finishing what was taken.
class ServingRuntime {
 public:
  ServingRuntime(const ServeOptions& options, const RunConfig& config, const quanta_app& app, std::size_t classes) {
    if (options.runtime == "linux") {
      kernel_ = std::make_unique<KernelThreadServer>(
          kernel_thread_server_config_of(config, options.kernel_threads, classes), app);
    } else {
      quanta_ = std::make_unique<Runtime>(runtime_config_of(config, classes), app);
    }
  }
  void add_source(Source& source) { quanta_ ? quanta_->add_source(source) : kernel_->add_source(source); }
  void start(const std::string& app_config) { quanta_ ? quanta_->start(app_config) : kernel_->start(app_config); }
  // Stop taking requests, answer every one already taken, stop the threads. `kernel` gets
  // the kernel-thread totals (untouched for quanta's runtime).
  RuntimeResult stop(KernelThreadTotals& kernel) {
    if (quanta_) return quanta_->stop();
    const KernelThreadResult r = kernel_->stop();
    kernel = r.kernel;
    return r;
  }

 private:
  std::unique_ptr<Runtime> quanta_;
  std::unique_ptr<KernelThreadServer> kernel_;
};

}  // namespace

int serve_command(const ServeOptions& options) {
  const sigset_t signals = serve_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  const bool kernel_threads = options.runtime == "linux";
  RunConfig config = options.config;
  const AppChoice apps(config.app_path);
  // The kernel-thread pool runs the clock-probe build: its probes end the accounting
  // slices of cpu_timed_handler.h (--preempt is clock there).
  const quanta_app& app = apps.for_mechanism(kernel_threads ? "clock" : config.preempt);
  const Workload workload = serve_workload(apps, options);

  FrontEndLimits limits;
  limits.max_in_flight = options.max_in_flight;
  limits.max_payload_bytes = config.max_payload_bytes;
  limits.max_response_bytes = config.max_response_bytes;
  limits.class_count = static_cast<uint32_t>(workload.classes().size());
  TcpLimits tcp_limits;
  tcp_limits.max_connections = options.max_connections;
  tcp_limits.max_in_flight_per_connection = options.max_in_flight_per_connection;
  tcp_limits.max_backlog_bytes = options.max_backlog_bytes;

  // The app's own protocol if it has one, else quanta's default (quanta/wire.h).
  std::unique_ptr<WireFormat> format;
  if (app.protocol != nullptr) {
    format = std::make_unique<AppWireFormat>(*app.protocol, limits.max_payload_bytes, limits.class_count);
  } else {
    format = std::make_unique<DefaultWireFormat>(limits.max_payload_bytes, limits.class_count);
  }
  const uint32_t datagram = app.protocol != nullptr ? app.protocol->datagram : QUANTA_DATAGRAM_PLAIN;
  // --be-listen: the tenant's sockets frame as the others do, their requests all of one class.
  std::unique_ptr<WireFormat> be_format;
  if (options.be_class) {
    if (*options.be_class >= limits.class_count) {
      throw std::invalid_argument("--be-class: " + std::to_string(*options.be_class) + " is not a class the app serves (" +
                                  std::to_string(limits.class_count) + " classes, from 0)");
    }
    be_format = std::make_unique<TenantWireFormat>(*format, *options.be_class);
  }

  NetCounters counters;
  const UdpReplySender udp_sender =
      options.udp_replies == "dispatcher" ? UdpReplySender::kDispatcher : UdpReplySender::kWorker;
  const UdpReceiveMethod udp_receive =
      options.udp_receive == "io_uring" ? UdpReceiveMethod::kIoUring : UdpReceiveMethod::kRecvmmsg;
  const TcpPollMethod tcp_poll = options.tcp_poll == "io_uring" ? TcpPollMethod::kIoUring : TcpPollMethod::kEpoll;
  std::vector<std::unique_ptr<UdpFrontEnd>> udp;
  std::vector<std::unique_ptr<TcpFrontEnd>> tcp;
  nlohmann::json listening = nlohmann::json::array();
  ServingRuntime runtime(options, config, app, workload.classes().size());
  std::vector<std::pair<ListenAddress, const WireFormat*>> sockets;
  for (const ListenAddress& address : options.listen) sockets.emplace_back(address, format.get());
  for (const ListenAddress& address : options.be_listen) sockets.emplace_back(address, be_format.get());
  nlohmann::json be_listening = nlohmann::json::array();
  for (const auto& [address, socket_format] : sockets) {
    std::string bound;
    if (address.transport == ListenAddress::Transport::kUdp) {
      udp.push_back(std::make_unique<UdpFrontEnd>(address, limits, *socket_format, datagram, counters, udp_sender,
                                                  udp_receive));
      runtime.add_source(*udp.back());
      bound = listen_address_text(address.transport, udp.back()->address());
    } else {
      try {
        tcp.push_back(std::make_unique<TcpFrontEnd>(address, limits, tcp_limits, *socket_format, counters, tcp_poll));
      } catch (const IoUringUnavailable& e) {
        // The option asked for something this machine does not allow: the command line's error.
        throw std::invalid_argument(std::string("--tcp-poll io_uring: io_uring cannot be set up here (") + e.what() +
                                    "); --tcp-poll epoll works without it");
      }
      runtime.add_source(*tcp.back());
      bound = listen_address_text(address.transport, tcp.back()->address());
    }
    (socket_format == format.get() ? listening : be_listening).push_back(bound);
  }
  runtime.start(config.app_config);
  for (const auto& bound : listening) std::fprintf(stderr, "quanta serve: listening on %s\n", bound.get<std::string>().c_str());
  for (const auto& bound : be_listening) {
    std::fprintf(stderr, "quanta serve: best-effort tenant (class %u) on %s\n", *options.be_class,
                 bound.get<std::string>().c_str());
  }
  std::fflush(stderr);

  wait_for_stop(options, counters);
  RuntimeResult r;
  KernelThreadTotals kernel;
  {
    const DrainWatch watch(counters);
    r = runtime.stop(kernel);
    // TCP replies (and UDP replies with --udp-replies dispatcher) are sent by the
    // dispatcher (quanta's or the kernel-thread pool's); what it had not sent when it
    // stopped goes out now, while the sockets are still open.
    for (auto& t : tcp) t->flush_after_stop();
    for (auto& u : udp) u->flush_after_stop();
  }

  RunResult result;
  static_cast<RunCounters&>(result) = r;
  result.config = config;
  result.config.workers = r.workers;
  result.elapsed_s = r.end_tsc > r.start_tsc ? cycles_to_ns(r.end_tsc - r.start_tsc) * 1e-9 : 0.0;
  result.config.duration_s = result.elapsed_s;
  // A server's rate is what came, not what was asked for.
  result.offered_rps = result.elapsed_s > 0 ? static_cast<double>(r.completed) / result.elapsed_s : 0.0;
  result.config.rate_rps = result.offered_rps;
  result.tsc_per_ns = tsc_per_ns();
  result.cpus = static_cast<unsigned>(allowed_cpus().size());
  result.app_name = app.name ? app.name : "";
  result.mean_service_us = 0;
  result.mean_service_source = "";
  if (kernel_threads) describe_kernel_threads(result.config, options.kernel_threads);

  nlohmann::json report = run_to_json(result, workload, "serve");
  if (kernel_threads) {
    add_kernel_thread_fields(report, options.kernel_threads, kernel);
  } else {
    report["config"]["runtime"] = "quanta";
  }
  report["config"]["listen"] = listening;
  if (options.be_class) {
    report["config"]["be_listen"] = be_listening;
    report["config"]["be_class"] = *options.be_class;
  }
  report["config"]["udp_replies"] = options.udp_replies;
  report["config"]["udp_receive"] = options.udp_receive;
  report["config"]["tcp_poll"] = options.tcp_poll;
  report["config"]["protocol"] = app.protocol != nullptr && app.protocol->name != nullptr ? app.protocol->name : "quanta";
  report["network"] = counters.to_json();
  if (options.format == "json") {
    std::cout << report.dump(2) << '\n';
  } else {
    std::cout << runs_to_text({report});
    std::cout << network_text(report["network"]);
  }
  RunOptions as_run;
  as_run.strict = options.strict;
  return strict_status(as_run, {report});
}

}  // namespace quanta
