// libFuzzer target for the calibration file's parser (parse_calibration, src/sim/calibration.h,
// read by quanta sim --calibration): arbitrary bytes as the file. A rejected file must be an
// error that names --calibration and the file; an accepted one must give overheads that are
// finite and >= 0, the same overheads when written back as the keys the simulator reads, and
// be refused, naming the key, once an unknown key is added to it.
//
// CI runs it for a fixed number of inputs (ctest: fuzz.calibration), with a dictionary of the
// keys a file may hold. For longer:
//   build/bin/quanta-fuzz-calibration -dict=tests/fuzz/calibration.dict -max_total_time=600 corpus/
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/calibration.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

const std::string kPath = "fuzz.json";

bool valid(double v) { return std::isfinite(v) && v >= 0; }

bool same(const quanta::SimOverheads& a, const quanta::SimOverheads& b) {
  return a.preempt_overhead_ns == b.preempt_overhead_ns && a.probe_overhead_pct == b.probe_overhead_pct &&
         a.dispatch_ns == b.dispatch_ns && a.quantum_jitter_ns == b.quantum_jitter_ns &&
         a.request_overhead_ns == b.request_overhead_ns;
}

void check_rejected(const std::invalid_argument& e) {
  const std::string_view message = e.what();
  check(message.starts_with("--calibration: '" + kPath + "'"));
}

void check_accepted(const quanta::SimOverheads& o, std::string_view text) {
  check(valid(o.preempt_overhead_ns) && valid(o.probe_overhead_pct) && valid(o.dispatch_ns) &&
        valid(o.quantum_jitter_ns) && valid(o.request_overhead_ns));
  const nlohmann::json written = {{"preempt_overhead_ns", o.preempt_overhead_ns},
                                  {"probe_overhead_pct", o.probe_overhead_pct},
                                  {"dispatch_ns_per_request", o.dispatch_ns},
                                  {"quantum_jitter_ns", o.quantum_jitter_ns},
                                  {"request_overhead_ns", o.request_overhead_ns}};
  check(same(quanta::parse_calibration(written.dump(), kPath), o));
  // The accepted text is a JSON object: with a key the simulator does not know, it is refused.
  nlohmann::json doc = nlohmann::json::parse(text);
  check(doc.is_object());
  doc["preempt_overhead_nss"] = 1;
  try {
    quanta::parse_calibration(doc.dump(), kPath);
    check(false);
  } catch (const std::invalid_argument& e) {
    check(std::string_view(e.what()).find("unknown key 'preempt_overhead_nss'") != std::string_view::npos);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  quanta::SimOverheads o;
  try {
    o = quanta::parse_calibration(text, kPath);
  } catch (const std::invalid_argument& e) {
    check_rejected(e);
    return 0;
  }
  check_accepted(o, text);
  return 0;
}
