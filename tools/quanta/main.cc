// The quanta command line. Exit status: 0 success, 2 bad usage (the message names the
// option), 1 a run that could not be carried out.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "run_command.h"

int main(int argc, char** argv) {
  CLI::App app{"quanta: microsecond-scale preemptive scheduling for latency-critical services"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show every command's options");

  quanta::RunOptions run_options;
  CLI::App* run = app.add_subcommand(
      "run", "Run a workload in this process: open-loop Poisson arrivals, dispatcher + pinned workers");
  quanta::add_run_options(*run, run_options);

  try {
    app.parse(argc, argv);
    if (run->parsed()) {
      // Policy-name lists are checked here, before any run starts.
      quanta::expand_runs(run_options);
    }
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "quanta: %s\n", e.what());
    std::fprintf(stderr, "Run 'quanta %s--help' for the options.\n", run->parsed() ? "run " : "");
    return 2;
  }

  try {
    if (run->parsed()) return quanta::run_command(run_options);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "quanta: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quanta: %s\n", e.what());
    return 1;
  }
  return 0;
}
