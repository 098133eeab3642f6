#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace quanta {

struct ProbesOptions {
  std::string binary;
  std::string format = "text";  // text | json
};

void add_probes_options(CLI::App& command, ProbesOptions& options);

// Lists the probe records of a binary's instrumented objects (docs/pass.md). A file that
// cannot be read as ELF throws std::invalid_argument (exit 2 in main).
int probes_command(const ProbesOptions& options);

}  // namespace quanta
