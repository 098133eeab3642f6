// Which app a `quanta run` serves, per preemption mechanism. --app takes one shared object
// or a comma list of builds of the same app (one per probe kind, e.g. app-clock.so,
// app-flag.so); each mechanism runs the build whose probes it needs, read from the
// objects' quanta_probes records: clock (and hybrid) need clock probes, flag needs flag
// probes, signal and none prefer a build without probes. Without --app it is the built-in
// spin app, whose three builds ship in lib/quanta/apps/ beside the command.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io/workload.h"
#include "runtime/app_library.h"

namespace quanta {

class AppChoice {
 public:
  // `list`: --app's value, empty for the spin app. Throws std::invalid_argument naming
  // the file and the problem.
  explicit AppChoice(const std::string& list);

  // The app for `mechanism` (a --preempt name, or "clock" for the kernel-thread baseline,
  // whose accounting slices are ended by clock probes). Throws std::invalid_argument when
  // no build fits; prints a warning to stderr once when the fit is a build without probes.
  const quanta_app& for_mechanism(const std::string& mechanism) const;

  // The workload the generator draws from: the app's own classes if it declares them
  // (then `workload_given` must be false), else `workload_spec`.
  Workload workload(const std::string& workload_spec, bool workload_given) const;
  // The same for a generator in this process (quanta run): an app's shares may follow its
  // --app-config (kv's mix=, get=...), so its setup(app_config) runs first and its teardown
  // after the classes are read, as around every run. Throws std::runtime_error if setup fails.
  Workload workload_after_setup(const std::string& workload_spec, bool workload_given,
                                const std::string& app_config) const;

  // What the report says about the app.
  std::string name() const;
  const std::string& list() const { return list_; }

 private:
  struct Build {
    std::unique_ptr<AppLibrary> library;
    std::string kind;  // "clock", "flag", "counter", "none" (no probes)
  };
  std::string list_;
  std::vector<Build> builds_;
  mutable std::vector<std::string> warned_;
};

// The directory of the built-in apps: lib/quanta/apps beside the running quanta command.
std::string builtin_app_dir();

}  // namespace quanta
