// A whole string read as one finite number (strtod's syntax; nothing may follow it), or
// nullopt: the check every spec parser here makes before its own range check.
#pragma once

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace quanta {

inline std::optional<double> parse_finite_number(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace quanta
