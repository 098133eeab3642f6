// libFuzzer target for --dispatch's parser (parse_dispatch_spec, src/policy/central_policy.h):
// arbitrary text as one dispatch policy name. A rejected name must be an error that quotes
// it; an accepted one is a name the simulator lists, or jbsq:K with K from 1 to 1024 read
// exactly from its digits, and parses again to the same spec. A per-request name must make
// a policy (make_dispatch_policy) that picks a worker among those it is shown.
//
// CI runs it for a fixed number of inputs (ctest: fuzz.dispatch_spec). For longer:
//   build/bin/quanta-fuzz-dispatch-spec -max_total_time=600 corpus/
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "policy/central_policy.h"
#include "policy/dispatch_policy.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void check_accepted(const quanta::DispatchSpec& spec, std::string_view text) {
  using Kind = quanta::DispatchSpec::Kind;
  check(spec.name == text);
  const auto& listed = quanta::sim_dispatch_policy_names();
  if (spec.kind == Kind::kJbsq) {
    check(text.starts_with("jbsq:") && spec.depth >= 1 && spec.depth <= 1024);
    const std::string_view digits = text.substr(5);
    check(!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos);
    check(std::stoul(std::string(digits)) == spec.depth);
  } else {
    check(spec.depth == 0 && std::find(listed.begin(), listed.end(), text) != listed.end());
    check(text != "jbsq:K");
  }
  const quanta::DispatchSpec again = quanta::parse_dispatch_spec(spec.name);
  check(again.kind == spec.kind && again.depth == spec.depth && again.name == spec.name);
  if (spec.kind == Kind::kPerRequest) {
    const auto& names = quanta::dispatch_policy_names();
    check(std::find(names.begin(), names.end(), text) != names.end());
    auto policy = quanta::make_dispatch_policy(spec.name, 1);
    check(policy != nullptr);
    std::vector<quanta::WorkerLoad> workers(3);
    workers[1].outstanding = 2;
    check(policy->choose(workers) < workers.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  quanta::DispatchSpec spec;
  try {
    spec = quanta::parse_dispatch_spec(text);
  } catch (const std::invalid_argument& e) {
    // what() ends at a NUL byte: the name is quoted up to its first one.
    const std::string_view message = e.what();
    check(!message.empty() && message.find("'" + std::string(text.substr(0, text.find('\0')))) != std::string_view::npos);
    return 0;
  }
  check_accepted(spec, text);
  return 0;
}
