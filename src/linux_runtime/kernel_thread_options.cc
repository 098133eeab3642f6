#include "linux_runtime/kernel_thread_options.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace quanta {

const std::vector<std::string>& linux_policy_names() {
  static const std::vector<std::string> names{"other", "rr", "fifo", "deadline"};
  return names;
}

LinuxPolicy parse_linux_policy(const std::string& name) {
  const auto& names = linux_policy_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<LinuxPolicy>(i);
  }
  throw std::invalid_argument("unknown Linux scheduling policy '" + name + "' (expected one of: other, rr, fifo, deadline)");
}

const char* linux_policy_name(LinuxPolicy policy) {
  return linux_policy_names()[static_cast<std::size_t>(policy)].c_str();
}

namespace {

// A whole number from `low` to `high`, or nullopt.
bool whole_number(const std::string& text, long low, long high, int& out) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || v < low || v > high) return false;
  out = static_cast<int>(v);
  return true;
}

bool positive_us(const std::string& text, double& out) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 1.1 || v > 1e6) return false;
  out = v;
  return true;
}

}  // namespace

std::vector<KernelThreadOptions> parse_class_sched(const std::string& spec, const KernelThreadOptions& base) {
  std::vector<KernelThreadOptions> classes;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = spec.find(',', start);
    const std::string entry = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::string where = "class " + std::to_string(classes.size()) + " ('" + entry + "'): ";
    const std::size_t colon = entry.find(':');
    const std::string name = entry.substr(0, colon);
    const bool has_arg = colon != std::string::npos;
    const std::string arg = has_arg ? entry.substr(colon + 1) : std::string();
    KernelThreadOptions k = base;
    k.class_sched.clear();
    try {
      k.policy = parse_linux_policy(name);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + e.what());
    }
    switch (k.policy) {
      case LinuxPolicy::kOther:
        if (has_arg && !whole_number(arg, -20, 19, k.nice)) {
          throw std::invalid_argument(where + "other takes a nice value from -20 to 19");
        }
        break;
      case LinuxPolicy::kRoundRobin:
      case LinuxPolicy::kFifo:
        if (has_arg && !whole_number(arg, 1, 99, k.rt_priority)) {
          throw std::invalid_argument(where + name + " takes an RT priority from 1 to 99");
        }
        break;
      case LinuxPolicy::kDeadline:
        if (has_arg) {
          const std::size_t slash = arg.find('/');
          if (slash == std::string::npos || !positive_us(arg.substr(0, slash), k.deadline_runtime_us) ||
              !positive_us(arg.substr(slash + 1), k.deadline_period_us)) {
            throw std::invalid_argument(where + "deadline takes RUNTIME/PERIOD in us, each from 1.1 to 1e6");
          }
        }
        if (k.deadline_runtime_us > k.deadline_period_us) {
          throw std::invalid_argument(where + "the runtime is longer than the period");
        }
        break;
    }
    classes.push_back(k);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return classes;
}

std::string describe_thread_policy(const KernelThreadOptions& o) {
  char text[96];
  switch (o.policy) {
    case LinuxPolicy::kOther:
      std::snprintf(text, sizeof text, "other:%d", o.nice);
      break;
    case LinuxPolicy::kRoundRobin:
    case LinuxPolicy::kFifo:
      std::snprintf(text, sizeof text, "%s:%d", linux_policy_name(o.policy), o.rt_priority);
      break;
    case LinuxPolicy::kDeadline:
      std::snprintf(text, sizeof text, "deadline:%g/%g", o.deadline_runtime_us, o.deadline_period_us);
      break;
  }
  return text;
}

}  // namespace quanta
