// A CLI11 validator that every floating-point option carries, before its range check:
// CLI11's range checks let NaN through (every comparison with it is false) and accept
// "inf", so a run could start with "quantum nan us"; and for text that is no number at all
// they print their bounds, 309 digits of the largest double. This one says what is wrong.
#pragma once

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace quanta {

inline const CLI::Validator& finite_number() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double value = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0') return "must be a number, not '" + text + "'";
        if (!std::isfinite(value) || (errno == ERANGE && std::fabs(value) > 1.0)) {
          return "must be a finite number, not '" + text + "'";
        }
        return {};
      },
      "FINITE");
  return validator;
}

}  // namespace quanta
