#include "runtime/app_library.h"

#include <dlfcn.h>
#include <link.h>

#include <stdexcept>

#include "runtime/app_abi.h"
#include "runtime/probe_records.h"

namespace quanta {

AppLibrary::AppLibrary(const std::string& path) : path_(path) {
  if (path.empty()) throw std::invalid_argument("--app: empty path");
  // A path without a slash would make dlopen search the library path: an app is a file.
  const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  // RTLD_NOW: an unresolved symbol fails here, with its name, not in the middle of a run.
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw std::invalid_argument("--app: cannot load '" + path + "': " + (why ? why : "unknown error"));
  }
  dlerror();
  void* entry = dlsym(handle, QUANTA_APP_ENTRY_SYMBOL);
  if (entry == nullptr) {
    throw std::invalid_argument("--app: '" + path + "' exports no " QUANTA_APP_ENTRY_SYMBOL
                                " function (define the app with QUANTA_APP_EXPORT(app) from quanta/quanta.h)");
  }
  const quanta_app* given = reinterpret_cast<quanta_app_entry_fn>(entry)();
  if (given == nullptr) throw std::invalid_argument("--app: " QUANTA_APP_ENTRY_SYMBOL " of '" + path + "' returned NULL");
  if (const std::string why = read_app_abi(*given, app_); !why.empty()) {
    throw std::invalid_argument("--app: '" + path + "' was " + why + " (rebuild it against this quanta)");
  }
  if (app_.handle_request == nullptr) throw std::invalid_argument("--app: '" + path + "' has no handle_request");
  check_protocol(app_, "--app: '" + path + "'");
  register_signal_safe_text(handle);
}

void AppLibrary::register_signal_safe_text(void* handle) {
  // The program's own quanta_text is known from its linker symbols; an object loaded
  // later has its own, which a preemption signal may leave at any instruction too.
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) return;
  for (const auto& [begin, end] : read_section_ranges(path_, "quanta_text")) {
    quanta_register_signal_safe_code(reinterpret_cast<const void*>(map->l_addr + begin),
                                     reinterpret_cast<const void*>(map->l_addr + end));
  }
}

void check_protocol(const quanta_app& app, const std::string& what) {
  const quanta_protocol* p = app.protocol;
  if (p == nullptr) return;
  if (p->frame_request == nullptr) throw std::invalid_argument(what + ": its protocol has no frame_request");
  if ((p->flags & ~uint32_t{QUANTA_PROTOCOL_IN_ORDER}) != 0) {
    throw std::invalid_argument(what + ": its protocol sets unknown flags " + std::to_string(p->flags));
  }
  if (p->datagram > QUANTA_DATAGRAM_MEMCACHED) {
    throw std::invalid_argument(what + ": its protocol's datagram framing " + std::to_string(p->datagram) +
                                " is not a QUANTA_DATAGRAM_* value");
  }
}

void check_generator_app(const quanta_app& app, const std::string& what) {
  if (app.make_request == nullptr) {
    throw std::invalid_argument(what + " has no make_request: the generator cannot build its requests (drive it "
                                       "through the runtime API instead, quanta/runtime.h)");
  }
  if ((app.classes == nullptr) != (app.class_count == 0)) {
    throw std::invalid_argument(what + ": classes and class_count must be both set or both empty");
  }
}

}  // namespace quanta
