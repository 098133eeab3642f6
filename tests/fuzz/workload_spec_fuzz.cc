// libFuzzer target for --workload's parser (Workload::parse, src/io/workload.h): arbitrary
// text as a workload name or spec. A rejected spec must say what is wrong and quote it; an
// accepted one must describe a workload the runtime can carry out: one or more classes with
// distinct keys, probabilities that sum to 1, service times from 1 ns to 4 s, the labels
// short/long/all as the report uses them, a spec that parses again to the same workload,
// and draws within the classes.
//
// CI runs it for a fixed number of inputs (ctest: fuzz.workload_spec), with a dictionary of
// the spec kinds. For longer:
//   build/bin/quanta-fuzz-workload-spec -dict=tests/fuzz/workload_spec.dict -max_total_time=600 corpus/
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "io/workload.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

bool in_service_range(double us) { return std::isfinite(us) && us >= 1e-3 && us <= 4e6; }

void check_accepted(const quanta::Workload& w, std::string_view text) {
  check(w.spec() == text);
  check(!w.app_defined());
  const auto& classes = w.classes();
  check(!classes.empty());
  check(in_service_range(w.mean_us()) && w.service_known());
  double total = 0;
  std::set<std::string> keys;
  for (const auto& c : classes) {
    check(std::isfinite(c.probability) && c.probability > 0 && c.probability <= 1);
    check(in_service_range(c.service_us));
    check(!c.key.empty() && keys.insert(c.key).second);
    total += c.probability;
  }
  check(std::fabs(total - 1) < 1e-9);
  if (classes.size() == 1) {
    check(classes[0].label == "all");
  } else {
    check(classes.front().label == "short" && classes.back().label == "long");
  }
  if (w.shape() == quanta::Workload::Shape::kDiscrete) {
    // A discrete class's key is its service time, written so that it reads back exactly.
    for (std::size_t i = 0; i < classes.size(); ++i) {
      double read = 0;
      const auto [end, error] = std::from_chars(classes[i].key.data(), classes[i].key.data() + classes[i].key.size(), read);
      check(error == std::errc() && end == classes[i].key.data() + classes[i].key.size() && read == classes[i].service_us);
      if (i > 0) check(classes[i - 1].service_us < classes[i].service_us);
    }
  } else {
    check(classes.size() == 1 && classes[0].key == w.spec());
  }
  // The spec round-trips.
  const quanta::Workload again = quanta::Workload::parse(w.spec());
  check(again.classes().size() == classes.size() && again.mean_us() == w.mean_us());
  for (std::size_t i = 0; i < classes.size(); ++i) {
    check(again.classes()[i].key == classes[i].key && again.classes()[i].probability == classes[i].probability);
  }
  // Draws stay within the classes and give finite, non-negative times.
  quanta::Rng rng(text.size());
  for (int i = 0; i < 16; ++i) {
    const quanta::ServiceSample s = w.sample(rng);
    check(s.class_index < classes.size() && std::isfinite(s.service_ns) && s.service_ns >= 0);
    const quanta::ServiceSample c = w.sample_class(s.class_index, rng);
    check(c.class_index < classes.size() && std::isfinite(c.service_ns) && c.service_ns >= 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  quanta::Workload w;
  try {
    w = quanta::Workload::parse(text);
  } catch (const std::invalid_argument& e) {
    // what() ends at a NUL byte: the spec is quoted up to its first one.
    const std::string_view message = e.what();
    check(message.starts_with("bad workload '") && message.find(text.substr(0, text.find('\0'))) != std::string_view::npos);
    return 0;
  }
  check_accepted(w, text);
  return 0;
}
