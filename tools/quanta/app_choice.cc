#include "app_choice.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "runtime/probe_records.h"

namespace quanta {
namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(',', start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

// The probe kind of a build: the mode its instrumented objects share.
std::string probe_kind(const std::string& path) {
  std::string kind = "none";
  for (const ProbeRecord& r : read_probe_records(path)) {
    if (r.probes == 0) continue;
    if (kind != "none" && kind != r.mode) {
      throw std::invalid_argument("--app: '" + path + "' mixes objects built with " + kind + " and " + r.mode +
                                  " probes; build every object of an app in one mode");
    }
    kind = r.mode;
  }
  return kind;
}

bool fits(const std::string& mechanism, const std::string& kind) {
  if (mechanism == "clock" || mechanism == "hybrid") return kind == "clock" || kind == "counter";
  if (mechanism == "flag") return kind == "flag";
  return kind == "none";  // signal, none: no probes needed
}

}  // namespace

std::string builtin_app_dir() {
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return "lib/quanta/apps";
  std::string path(exe, static_cast<std::size_t>(n));
  const std::size_t slash = path.rfind('/');
  return path.substr(0, slash) + "/../lib/quanta/apps";
}

AppChoice::AppChoice(const std::string& list) : list_(list) {
  std::string paths = list;
  if (paths.empty()) {
    const std::string dir = builtin_app_dir();
    paths = dir + "/spin-clock.so," + dir + "/spin-flag.so," + dir + "/spin-plain.so";
  }
  for (const std::string& path : split_list(paths)) {
    Build build;
    build.library = std::make_unique<AppLibrary>(path);
    build.kind = probe_kind(path);
    builds_.push_back(std::move(build));
  }
  const std::string first = builds_.front().library->app().name ? builds_.front().library->app().name : "";
  for (const Build& b : builds_) {
    check_generator_app(b.library->app(), "--app: the app in '" + b.library->path() + "'");
    const std::string name = b.library->app().name ? b.library->app().name : "";
    if (name != first) {
      throw std::invalid_argument("--app: '" + b.library->path() + "' is the app '" + name + "', not '" + first +
                                  "': a list names builds of one app");
    }
  }
}

const quanta_app& AppChoice::for_mechanism(const std::string& mechanism) const {
  for (const Build& b : builds_) {
    if (fits(mechanism, b.kind)) return b.library->app();
  }
  // signal and none run any build: probes that never fire cost a little, nothing more.
  if (mechanism == "signal" || mechanism == "none") return builds_.front().library->app();
  // A build without probes still runs: it stops wherever it calls quanta_yield().
  for (const Build& b : builds_) {
    if (b.kind != "none") continue;
    if (std::find(warned_.begin(), warned_.end(), mechanism) == warned_.end()) {
      std::fprintf(stderr,
                   "quanta: warning: '%s' has no probes: with --preempt %s its requests stop only where they call "
                   "quanta_yield() (build it with quanta-clang to place probes)\n",
                   b.library->path().c_str(), mechanism.c_str());
      warned_.push_back(mechanism);
    }
    return b.library->app();
  }
  std::string kinds;
  for (const Build& b : builds_) kinds += (kinds.empty() ? "" : ", ") + b.library->path() + " (" + b.kind + ")";
  throw std::invalid_argument("--app: no build for --preempt " + mechanism + " among " + kinds + ": it needs " +
                              (mechanism == "flag" ? std::string("flag") : std::string("clock")) +
                              " probes (QUANTA_MODE=" + (mechanism == "flag" ? "flag" : "clock") +
                              " quanta-clang); give that build too, --app a-clock.so,a-flag.so");
}

Workload AppChoice::workload(const std::string& workload_spec, bool workload_given) const {
  const quanta_app& app = builds_.front().library->app();
  if (app.class_count == 0) return Workload::parse(workload_spec);
  const std::string name = app.name ? app.name : "app";
  if (workload_given) {
    throw std::invalid_argument("--workload: the app '" + name +
                                "' declares its own request classes; --workload is for apps that take their "
                                "classes from it (like the built-in spin app)");
  }
  std::vector<DeclaredClass> classes;
  for (uint32_t i = 0; i < app.class_count; ++i) {
    const quanta_class& c = app.classes[i];
    classes.push_back({c.name ? c.name : "", c.share, c.service_us});
  }
  return Workload::declared(name, classes);
}

Workload AppChoice::workload_after_setup(const std::string& workload_spec, bool workload_given,
                                         const std::string& app_config) const {
  const quanta_app& app = builds_.front().library->app();
  if (app.class_count == 0 || app.setup == nullptr) return workload(workload_spec, workload_given);
  if (app.setup(app_config.c_str()) != 0) {
    throw std::runtime_error("the app '" + name() + "' failed its setup with --app-config '" + app_config + "'");
  }
  Workload w = workload(workload_spec, workload_given);
  if (app.teardown != nullptr) app.teardown();
  return w;
}

std::string AppChoice::name() const {
  const quanta_app& app = builds_.front().library->app();
  return app.name ? app.name : "";
}

}  // namespace quanta
