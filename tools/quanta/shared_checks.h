// Checks several commands put on the same kind of option (run, sim, serve, load): each
// returns the empty string for a good value, else what is wrong with it, as CLI11 wants.
#pragma once

#include <stdexcept>
#include <string>

#include "io/workload.h"

namespace quanta {

// --workload: a name or spec Workload::parse takes.
inline std::string workload_spec_error(const std::string& spec) {
  try {
    Workload::parse(spec);
    return {};
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

// --app: an empty path would silently mean the built-in spin app.
inline std::string app_path_error(const std::string& list) {
  return list.empty() ? std::string("must name a shared object (leave --app out for the spin app)") : std::string();
}

}  // namespace quanta
