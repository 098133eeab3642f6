// Reading a quanta_app of any ABI version this runtime takes (QUANTA_APP_ABI_VERSION and
// the two before it) into the current shape, so that the rest of the runtime sees one
// struct. Version 2 ended before `protocol`: reading that field from such an app would read
// past its object, so the known prefix is copied and the rest left empty.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include "quanta/quanta.h"

namespace quanta {

inline constexpr uint32_t kOldestAppAbiVersion = 2;

// Copies `given` into `out` in the current shape. Returns "" or what is wrong (for the
// caller's message): a version this runtime does not take.
inline std::string read_app_abi(const quanta_app& given, quanta_app& out) {
  // Version 3's quanta_app has this version's shape: only the frame note is new, and a
  // version 3 framer never writes it (the server zeroes it), so its handler gets 0.
  if (given.abi_version == QUANTA_APP_ABI_VERSION || given.abi_version == 3) {
    out = given;
    out.abi_version = QUANTA_APP_ABI_VERSION;
    return "";
  }
  if (given.abi_version == 2) {
    out = quanta_app{};
    std::memcpy(&out, &given, offsetof(quanta_app, protocol));
    out.abi_version = QUANTA_APP_ABI_VERSION;
    return "";
  }
  return "built for app ABI version " + std::to_string(given.abi_version) + ", this quanta takes versions " +
         std::to_string(kOldestAppAbiVersion) + " to " + std::to_string(QUANTA_APP_ABI_VERSION);
}

}  // namespace quanta
