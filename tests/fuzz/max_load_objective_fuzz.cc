// libFuzzer target for --max-load's parser (parse_max_load_objective, src/experiment/max_load.h):
// arbitrary text as an objective. A rejected one must be an error that names --max-load and
// quotes the text; an accepted one must hold a class, a known statistic and a finite bound
// >= 0, and read back to the same objective from the text it keeps and from its parts put
// together again. Its metric must be read from a run's JSON that has it.
//
// CI runs it for a fixed number of inputs (ctest: fuzz.max_load_objective). For longer:
//   build/bin/quanta-fuzz-max-load-objective -max_total_time=600 corpus/
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "experiment/max_load.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

bool same(const quanta::MaxLoadObjective& a, const quanta::MaxLoadObjective& b) {
  return a.target == b.target && a.stat == b.stat && a.slowdown == b.slowdown && a.untouched == b.untouched &&
         a.limit == b.limit;
}

void check_accepted(const quanta::MaxLoadObjective& o, std::string_view text) {
  check(o.text == text);
  check(!o.target.empty() && o.target != "all");
  check(o.stat == "p50" || o.stat == "p99" || o.stat == "p99.9" || o.stat == "mean" || o.stat == "max");
  check(std::isfinite(o.limit) && o.limit >= 0);
  check(same(quanta::parse_max_load_objective(o.text), o));
  // Its parts, written out again with the bound in its shortest exact form, give it back.
  char bound[64];
  const auto written = std::to_chars(bound, bound + sizeof bound, o.limit);
  const std::string rebuilt = std::string(o.untouched ? "untouched:" : "") + o.target + ":" + o.stat +
                              (o.slowdown ? "-slowdown" : "-us") + "<=" + std::string(bound, written.ptr);
  check(same(quanta::parse_max_load_objective(rebuilt), o));
  // The metric is read from where a run's JSON keeps it.
  nlohmann::json stats = {{"overall", {{"slowdown", {{o.stat, 1.5}}}, {"sojourn_us", {{o.stat, 2.5}}}}},
                          {"classes", {{o.target, {{"label", "x"}, {"slowdown", {{o.stat, 1.5}}},
                                                   {"sojourn_us", {{o.stat, 2.5}}}}}}}};
  nlohmann::json run = stats;
  run["untouched"] = stats;
  check(quanta::objective_value(o, run) == (o.slowdown ? 1.5 : 2.5));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  quanta::MaxLoadObjective o;
  try {
    o = quanta::parse_max_load_objective(text);
  } catch (const std::invalid_argument& e) {
    // what() ends at a NUL byte: the text is quoted up to its first one.
    const std::string_view message = e.what();
    check(message.starts_with("--max-load '") && message.find(text.substr(0, text.find('\0'))) != std::string_view::npos);
    return 0;
  }
  check_accepted(o, text);
  return 0;
}
