#include "serve_options.h"

#include "policy/classed_policy.h"

#include "finite_number.h"
#include "linux_options.h"
#include "shared_checks.h"
#include "run_options.h"
#include "runtime/cpu_layout.h"

namespace quanta {

void add_serve_options(CLI::App& cmd, ServeOptions& o) {
  RunConfig& c = o.config;
  cmd.add_option("--listen", o.listen_texts,
                 "Where to listen: udp://HOST:PORT or tcp://HOST:PORT, repeatable; port 0 takes a free port (the "
                 "bound addresses are printed on stderr). Default udp://127.0.0.1:0; any other host must be given");
  cmd.add_option("--app", c.app_path,
                 "The app to serve: a shared object exporting QUANTA_APP_EXPORT(app), or a comma list of builds of it "
                 "with different probes. Default: the built-in spin app (the payload is 8 bytes: cycles to spin)")
      ->check(app_path_error);
  cmd.add_option("--app-config", c.app_config, "A string handed to the app's setup()");
  cmd.add_option("--workers", c.workers, "Worker cores (default: CPUs - 1, here " + std::to_string(max_workers()) + ")")
      ->check(CLI::Range(1u, 4096u));
  cmd.add_option("--quantum-us", c.quantum_us, "Quantum in microseconds")
      ->capture_default_str()
      ->check(finite_number())
      ->check(positive_number());
  cmd.add_option("--local", c.local_policy, "Local policy per worker: ps, fcfs, las")->capture_default_str();
  cmd.add_option("--dispatch", c.dispatch_policy, "Dispatch policy: jsq-msq, jsq, random, po2, central, jbsq:K, steal")
      ->capture_default_str()
      ->each([&o](const std::string&) { o.dispatch_given = true; });
  cmd.add_option("--preempt", c.preempt, "Preemption mechanism: clock, flag, signal, hybrid, none")
      ->capture_default_str();
  cmd.add_option("--backstop-us", c.backstop_us, "hybrid: signal a task still running this long into its quantum")
      ->capture_default_str()
      ->check(finite_number())
      ->check(positive_number());
  add_runtime_resource_options(cmd, c);
  add_idle_option(cmd, c);
  add_watchdog_options(cmd, c);
  // The class a request names in its header (quanta load: its --workload's class) is the
  // schedule's class index: a tenant sends its BE requests as the schedule's BE class.
  add_class_schedule_option(cmd, c.class_schedule);
  cmd.add_option("--be-listen", o.be_listen_texts,
                 "A best-effort tenant's own socket, udp://HOST:PORT or tcp://HOST:PORT, repeatable: every request "
                 "it takes runs as class --be-class (default: the first be class of --class-schedule), whatever "
                 "its header names; the same app, protocol and limits as --listen");
  cmd.add_option("--be-class", o.be_class, "The class of the requests --be-listen takes")->check(CLI::Range(0u, 65535u));
  cmd.add_option("--on-full", c.on_full,
                 "When a worker's ring is full: wait (the dispatcher stops reading the sockets meanwhile) or drop "
                 "(the request is answered OVERLOADED)")
      ->capture_default_str()
      ->check(CLI::IsMember({"wait", "drop"}));
  cmd.add_flag("--dispatcher-works", c.dispatcher_works,
               "With central or jbsq:K and clock, hybrid or flag (flag: the dispatcher runs the handler's clock twin): the dispatcher runs arriving requests itself when every "
               "worker is full");
  cmd.add_flag("--dispatcher-only", c.dispatcher_only,
               "No worker threads: the dispatcher runs every request itself between polls of the sockets, a quantum "
               "at a time in --local's order (clock probes, or none), on one CPU, as memcached -t 1 serves on one "
               "thread. Implies --dispatch central");
  cmd.add_flag("--oversubscribe", c.oversubscribe,
               "Allow more --workers than free CPUs (for tests on small machines; latencies then mean nothing)");
  cmd.add_option("--max-payload-bytes", c.max_payload_bytes,
                 "Largest request payload; a larger request is answered BAD_REQUEST")
      ->capture_default_str()
      ->check(CLI::Range(8u, 64u << 20));
  cmd.add_option("--max-response-bytes", c.max_response_bytes, "Response buffer of each request")
      ->capture_default_str()
      ->check(CLI::Range(0u, 64u << 20));
  cmd.add_option("--max-in-flight", o.max_in_flight,
                 "Requests each listening socket holds between arrival and reply; more are answered OVERLOADED")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 20));
  cmd.add_option("--max-connections", o.max_connections,
                 "TCP connections open at once; more are accepted and closed at once (counted)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 20));
  cmd.add_option("--max-in-flight-per-connection", o.max_in_flight_per_connection,
                 "Requests of one TCP connection in the runtime at once; past it the connection is not read until "
                 "replies go out")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 16));
  cmd.add_option("--max-backlog-bytes", o.max_backlog_bytes,
                 "Reply bytes a TCP connection may leave unread; past it the client is judged not to read and the "
                 "connection is closed (counted)")
      ->capture_default_str()
      ->check(CLI::Range(1024u, 1u << 30));
  cmd.add_option("--udp-replies", o.udp_replies,
                 "Who sends UDP replies: worker (the worker that finished the request, with sendmsg) or dispatcher "
                 "(the workers hand finished requests back; the dispatcher sends them in batches with sendmmsg)")
      ->capture_default_str()
      ->check(CLI::IsMember({"worker", "dispatcher"}));
  cmd.add_option("--udp-receive", o.udp_receive,
                 "How the dispatcher takes datagrams: recvmmsg (a system call per poll) or io_uring (a multishot "
                 "receive armed once; a poll that finds nothing makes no system call)")
      ->capture_default_str()
      ->check(CLI::IsMember({"recvmmsg", "io_uring"}));
  cmd.add_option("--tcp-poll", o.tcp_poll,
                 "How the dispatcher learns which TCP sockets are ready: epoll (an epoll_wait at every poll) or "
                 "io_uring (an io_uring poll on the epoll set; epoll_wait only when it says something became ready, "
                 "so a poll that finds nothing makes no system call)")
      ->capture_default_str()
      ->check(CLI::IsMember({"epoll", "io_uring"}));
  cmd.add_option("--workload", o.workload,
                 "For an app that declares no classes (the spin app): the workload whose classes requests may "
                 "name and the report is split by, as quanta load sends them")
      ->capture_default_str()
      ->check(workload_spec_error)
      ->each([&o](const std::string&) { o.workload_given = true; });
  cmd.add_option("--duration-s", o.duration_s, "Stop after this many seconds (default: run until SIGINT or SIGTERM)")
      ->check(finite_number())
      ->check(positive_number())
      ->check(at_most(1e9, "31 years; leave it out to run until stopped"));
  cmd.add_option("--format", o.format, "Statistics at the end: text (a table) or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
  cmd.add_flag("--strict", o.strict, "Exit with status 3 when the run's figures come with warnings");
  add_linux_runtime_options(cmd, o);
}

void check_serve_options(ServeOptions& o) {
  RunConfig& c = o.config;
  if (c.dispatcher_only) {
    if (c.workers != 0) throw CLI::ValidationError("--dispatcher-only", "runs no workers: drop --workers");
    if (o.dispatch_given && c.dispatch_policy != "central") {
      throw CLI::ValidationError("--dispatcher-only", "needs --dispatch central (its default), not '" +
                                                          c.dispatch_policy + "': there are no workers to choose among");
    }
    if (c.dispatcher_works) throw CLI::ValidationError("--dispatcher-only", "already has the dispatcher work: drop --dispatcher-works");
    c.dispatch_policy = "central";
  }
  if (c.workers > max_workers() && !c.oversubscribe) {
    throw CLI::ValidationError("--workers", "must be 1.." + std::to_string(max_workers()) +
                                                " here (one CPU is the dispatcher's)" +
                                                (o.runtime == "linux" ? std::string(": --threads-per-core puts more "
                                                                                    "threads on each")
                                                                      : std::string("; --oversubscribe allows more")));
  }
  // The policy names are checked as `quanta run` checks them; a server runs one combination.
  for (const auto& [option, value] : {std::pair<const char*, const std::string&>{"--local", c.local_policy},
                                      {"--dispatch", c.dispatch_policy},
                                      {"--preempt", c.preempt}}) {
    if (value.find(',') != std::string::npos) {
      throw CLI::ValidationError(option, "takes one value for a server, not the list '" + value + "'");
    }
  }
  RunOptions as_run;
  as_run.base = c;
  as_run.local_list = c.local_policy;
  as_run.dispatch_list = c.dispatch_policy;
  as_run.preempt_list = c.preempt;
  expand_runs(as_run);
  o.listen.clear();
  for (const std::string& text : o.listen_texts) {
    try {
      o.listen.push_back(parse_listen_address(text));
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--listen", e.what());
    }
  }
  if (o.listen.empty()) o.listen.push_back(parse_listen_address("udp://127.0.0.1:0"));
  if (o.be_class && o.be_listen_texts.empty()) throw CLI::ValidationError("--be-class", "needs --be-listen");
  if (!o.be_listen_texts.empty() && !o.be_class) {
    // The schedule's first best-effort class (the schedule was checked as it was parsed).
    if (!c.class_schedule.empty()) {
      const std::vector<ClassParams> classes = parse_class_schedule(c.class_schedule, 1.0);
      for (uint32_t i = 0; i < classes.size() && !o.be_class; ++i) {
        if (!classes[i].latency_critical) o.be_class = i;
      }
    }
    if (!o.be_class) {
      throw CLI::ValidationError("--be-listen", "needs --be-class, or a --class-schedule with a be class, to say "
                                                "which class its requests are");
    }
  }
  o.be_listen.clear();
  for (const std::string& text : o.be_listen_texts) {
    try {
      o.be_listen.push_back(parse_listen_address(text));
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--be-listen", e.what());
    }
  }
  // Everything a serve receives is measured: there is no warm-up to leave out.
  c.warmup_frac = 0;
}

}  // namespace quanta
