#include "runtime/code_address.h"

#include <dlfcn.h>

#include <cinttypes>
#include <cstdio>

namespace quanta {
namespace {

std::string base_name(const char* path) {
  std::string name = path;
  const std::size_t slash = name.rfind('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  return name.empty() ? "the program" : name;
}

}  // namespace

std::string describe_code_address(uintptr_t pc) {
  char text[64];
  Dl_info info{};
  if (pc == 0 || dladdr(reinterpret_cast<const void*>(pc), &info) == 0 || info.dli_fname == nullptr) {
    std::snprintf(text, sizeof text, "0x%" PRIxPTR, pc);
    return text;
  }
  const std::string object = base_name(info.dli_fname);
  if (info.dli_sname != nullptr && info.dli_saddr != nullptr) {
    std::snprintf(text, sizeof text, "+0x%" PRIxPTR, pc - reinterpret_cast<uintptr_t>(info.dli_saddr));
    return object + " (" + info.dli_sname + text + ")";
  }
  std::snprintf(text, sizeof text, "+0x%" PRIxPTR, pc - reinterpret_cast<uintptr_t>(info.dli_fbase));
  return object + " (" + text + ")";
}

std::string code_object_name(uintptr_t pc) {
  Dl_info info{};
  if (pc == 0 || dladdr(reinterpret_cast<const void*>(pc), &info) == 0 || info.dli_fname == nullptr) return "unknown";
  return base_name(info.dli_fname);
}

}  // namespace quanta
