// A CLI11 validator that every floating-point option carries, before its range check:
// CLI11's range checks let NaN through (every comparison with it is false) and accept
// "inf", so a run could start with "quantum nan us"; and for text that is no number at all
// they print their bounds, 309 digits of the largest double. This one says what is wrong.
#pragma once

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdio>
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

// CLI11's PositiveNumber and NonNegativeNumber print their bounds as "0.000000 to " and the
// 309 digits of the largest double; these say the bound in words. Each comes after
// finite_number(), which has refused text that is not a finite number.
inline const CLI::Validator& positive_number() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        return std::strtod(text.c_str(), nullptr) > 0 ? std::string() : "must be above 0, not '" + text + "'";
      },
      "POSITIVE");
  return validator;
}

inline const CLI::Validator& non_negative_number() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        return std::strtod(text.c_str(), nullptr) >= 0 ? std::string() : "must be 0 or more, not '" + text + "'";
      },
      "NONNEGATIVE");
  return validator;
}

// A bound above which a value would overflow where it is used (a duration in clock ticks),
// said as "at most 1e+09", not as CLI11's Range says it ("1000000000.000000").
inline CLI::Validator at_most(double limit, const std::string& why) {
  return CLI::Validator(
      [limit, why](std::string& text) -> std::string {
        char bound[32];
        std::snprintf(bound, sizeof bound, "%g", limit);
        return std::strtod(text.c_str(), nullptr) <= limit
                   ? std::string()
                   : "must be at most " + std::string(bound) + " (" + why + "), not '" + text + "'";
      },
      "AT_MOST");
}

}  // namespace quanta
