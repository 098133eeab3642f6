// The options of `quanta serve`: the runtime options `quanta run` has (one value each:
// a server runs one configuration; --runtime linux and its kernel-thread options too),
// where it listens, and its network limits.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiment/run_config.h"
#include "linux_runtime/kernel_thread_options.h"
#include "net/listen_address.h"

namespace quanta {

struct ServeOptions {
  RunConfig config;                          // the runtime's options (workload, load, ... unused)
  std::string runtime = "quanta";            // quanta | linux (a pool of kernel threads serves)
  KernelThreadOptions kernel_threads;        // --runtime linux only
  std::vector<std::string> listen_texts;     // --listen, as given
  std::vector<ListenAddress> listen;         // parsed; udp://127.0.0.1:0 when none given
  // A best-effort tenant's own sockets: every request they take is of class be_class
  // (--be-class, or the first be class of --class-schedule).
  std::vector<std::string> be_listen_texts;  // --be-listen, as given
  std::vector<ListenAddress> be_listen;
  std::optional<uint32_t> be_class;
  std::optional<double> duration_s;          // stop after this long; unset: until SIGINT/SIGTERM
  unsigned max_in_flight = 4096;             // request records per front end
  unsigned max_connections = 256;            // TCP connections open at once
  unsigned max_in_flight_per_connection = 64;
  unsigned max_backlog_bytes = 1u << 20;   // unwritten reply bytes per TCP connection
  // Who sends UDP replies: the worker that finished the request, or the dispatcher
  // (batched). Both exist so that they can be measured against each other.
  std::string udp_replies = "worker";
  std::string udp_receive = "recvmmsg";
  // When the TCP front end asks epoll which sockets are ready: at every poll, or when an
  // io_uring poll on its epoll set says something became ready.
  std::string tcp_poll = "epoll";
  std::string format = "text";
  bool strict = false;
  // The classes requests may name for an app that declares none: those of this workload
  // (the same default as quanta run and quanta load, so the three agree out of the box).
  std::string workload = "extreme-bimodal";
  bool workload_given = false;
  bool dispatch_given = false;
};

void add_serve_options(CLI::App& command, ServeOptions& options);

// Checks the policy names and parses the listen addresses (CLI::ValidationError naming the
// option). Called once the command line is parsed.
void check_serve_options(ServeOptions& options);

}  // namespace quanta
