#include "linux_runtime/kernel_thread_options.h"

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

}  // namespace quanta
