#include "policy/central_policy.h"

#include <charconv>
#include <stdexcept>

namespace quanta {

const std::vector<std::string>& sim_dispatch_policy_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all = dispatch_policy_names();
    for (const char* extra : {"central", "jbsq:K", "steal"}) all.emplace_back(extra);
    return all;
  }();
  return names;
}

DispatchSpec parse_dispatch_spec(std::string_view name) {
  DispatchSpec spec;
  spec.name = std::string(name);
  for (const auto& known : dispatch_policy_names()) {
    if (name == known) return spec;
  }
  if (name == "central") {
    spec.kind = DispatchSpec::Kind::kCentral;
    return spec;
  }
  if (name == "steal") {
    spec.kind = DispatchSpec::Kind::kSteal;
    return spec;
  }
  if (name.starts_with("jbsq:")) {
    const std::string_view digits = name.substr(5);
    uint32_t depth = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), depth);
    if (error == std::errc() && end == digits.data() + digits.size() && depth >= 1 && depth <= 1024) {
      spec.kind = DispatchSpec::Kind::kJbsq;
      spec.depth = depth;
      return spec;
    }
    throw std::invalid_argument("bad dispatch policy '" + spec.name + "': jbsq:K needs K from 1 to 1024");
  }
  throw std::invalid_argument("unknown dispatch policy '" + spec.name +
                              "' (expected jsq-msq, jsq, random, po2, central, jbsq:K or steal)");
}

}  // namespace quanta
