// The quanta command line. Exit status: 0 success, 2 bad usage (the message names the
// option), 1 a run that could not be carried out, 3 a run whose figures came with
// warnings under --strict.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <exception>

#include "calibrate_command.h"
#include "quanta/runtime.h"
#include "load_command.h"
#include "max_load_options.h"
#include "probes_command.h"
#include "run_command.h"
#include "serve_command.h"
#include "sim_command.h"

int main(int argc, char** argv) {
  CLI::App app{"quanta: microsecond-scale preemptive scheduling for latency-critical services"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("quanta ") + quanta_version());
  app.set_help_all_flag("--help-all", "Show every command's options");

  quanta::RunOptions run_options;
  CLI::App* run = app.add_subcommand(
      "run", "Run a workload in this process: open-loop Poisson arrivals, dispatcher + pinned workers");
  quanta::add_run_options(*run, run_options);
  quanta::MaxLoadOptions run_max_load;
  quanta::add_max_load_options(*run, run_max_load);

  quanta::SimOptions sim_options;
  CLI::App* sim = app.add_subcommand(
      "sim", "Simulate a run on any number of workers: the same options and JSON as run, on simulated time");
  quanta::add_sim_options(*sim, sim_options);

  quanta::ServeOptions serve_options;
  CLI::App* serve = app.add_subcommand(
      "serve", "Serve the app over UDP and TCP (quanta/wire.h's protocol) until SIGINT/SIGTERM, then print the "
               "run's statistics and the network counters (SIGUSR1: a snapshot of the counters on stderr)");
  quanta::add_serve_options(*serve, serve_options);

  quanta::CalibrateOptions calibrate_options;
  CLI::App* calibrate = app.add_subcommand(
      "calibrate", "Measure this machine's costs (clock reads, quantum round trip, probes, flag notification, "
                   "dispatch) and print them as JSON for quanta sim --calibration");
  quanta::add_calibrate_options(*calibrate, calibrate_options);

  quanta::ProbesOptions probes_options;
  CLI::App* probes = app.add_subcommand(
      "probes", "List the objects of a binary that the quanta pass instrumented: probe kind, probes, "
                "lock sites and functions per object (section quanta_probes)");
  quanta::add_probes_options(*probes, probes_options);

  quanta::LoadOptions load_options;
  CLI::App* load = app.add_subcommand(
      "load", "Open-loop network load generator: Poisson (or constant) sends to a server speaking quanta's wire "
              "protocol over UDP or TCP, latency from each request's intended send time");
  quanta::add_load_options(*load, load_options);

  // A first word that names no command is the mistake to report (CLI11 would say only that
  // a command is required).
  if (argc >= 2 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const CLI::App* command : app.get_subcommands({})) {
      known = known || command->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + command->get_name();
    }
    if (!known) {
      std::fprintf(stderr, "quanta: unknown command '%s' (the commands: %s)\nRun 'quanta --help' for the options.\n",
                   argv[1], names.c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
    if (run->parsed()) {
      // Policy-name lists are checked here, before any run starts.
      quanta::expand_runs(run_options);
    }
    if (sim->parsed()) quanta::expand_sim_runs(sim_options);
    if (serve->parsed()) quanta::check_serve_options(serve_options);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "quanta: %s\n", e.what());
    std::fprintf(stderr, "Run 'quanta %s--help' for the options.\n",
                 run->parsed()         ? "run "
                 : sim->parsed()       ? "sim "
                 : serve->parsed()     ? "serve "
                 : calibrate->parsed() ? "calibrate "
                 : probes->parsed()    ? "probes "
                 : load->parsed()      ? "load "
                                       : "");
    return 2;
  }

  try {
    if (run->parsed() && !run_max_load.objective.empty()) {
      return quanta::run_max_load_command(run_options, run_max_load);
    }
    if (run->parsed()) return quanta::run_command(run_options);
    if (sim->parsed()) return quanta::sim_command(sim_options);
    if (serve->parsed()) return quanta::serve_command(serve_options);
    if (calibrate->parsed()) return quanta::calibrate_command(calibrate_options);
    if (probes->parsed()) return quanta::probes_command(probes_options);
    if (load->parsed()) return quanta::load_command(load_options);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "quanta: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quanta: %s\n", e.what());
    return 1;
  }
  return 0;
}
