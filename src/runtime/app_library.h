// An app built as a shared object (`quanta run --app PATH.so`): loaded with dlopen, its
// one exported function (QUANTA_APP_ENTRY_SYMBOL) asked for the app, the app checked
// before anything runs, and its quanta_text section registered as signal-safe code. The object's quanta_* references bind to the program that loads
// it, which must export the runtime's C API (the quanta command does).
#pragma once

#include <string>

#include "quanta/quanta.h"

namespace quanta {

class AppLibrary {
 public:
  // Throws std::invalid_argument naming the path and what is wrong: the file cannot be
  // loaded (dlerror's text), has no entry function, returns no app, or an app built for
  // an ABI version this quanta does not take (app_abi.h), without handle_request, or with
  // a protocol that lacks its framer.
  explicit AppLibrary(const std::string& path);
  // The object stays loaded for the life of the process: worker threads that ran its code
  // may still have its thread-local destructors to run.
  ~AppLibrary() = default;

  // The app in the current ABI's shape (a copy: an older app's struct is shorter).
  const quanta_app& app() const { return app_; }
  const std::string& path() const { return path_; }

 private:
  // Registers the object's quanta_text section (what the pass instrumented, and
  // QUANTA_SIGNAL_SAFE functions) as code a preemption signal may switch out of.
  void register_signal_safe_text(void* handle);

  std::string path_;
  quanta_app app_{};
};

// Checks an app's protocol (quanta/protocol.h), if it has one: a framer and a known
// datagram framing. Throws std::invalid_argument starting with `what`.
void check_protocol(const quanta_app& app, const std::string& what);

// Checks what every app needs to run under the generator (make_request) and gives a clear
// error otherwise; `what` names the app in the message.
void check_generator_app(const quanta_app& app, const std::string& what);

}  // namespace quanta
