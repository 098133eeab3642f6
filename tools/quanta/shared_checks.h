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

// --workload-shift: SPEC@T_S,... as Workload::shifting takes it (of any workload).
inline std::string workload_shift_error(const std::string& shifts) {
  try {
    Workload::shifting(Workload::parse("fixed1"), shifts);
    return {};
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

// The workload a command runs: `base`, shifting if --workload-shift was given.
inline Workload with_shift(Workload base, const std::string& shifts) {
  return shifts.empty() ? base : Workload::shifting(base, shifts);
}

// --seed: a whole number from 0 to 2^64 - 1, written in decimal. (CLI11 would clamp a
// larger one to 2^64 - 1 without a word, and take "-1" as 2^64 - 1.)
inline std::string seed_error(const std::string& text) {
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos) {
    return "must be a whole number from 0 to 18446744073709551615, not '" + text + "'";
  }
  if (text.size() == 20 && text > "18446744073709551615") {
    return "must be at most 18446744073709551615, not " + text;
  }
  return {};
}

// --app: an empty path would silently mean the built-in spin app.
inline std::string app_path_error(const std::string& list) {
  return list.empty() ? std::string("must name a shared object (leave --app out for the spin app)") : std::string();
}

}  // namespace quanta
