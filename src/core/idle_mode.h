// What a runtime thread does when it has nothing to do (--idle spin|yield|block).
#pragma once

#include <string_view>

namespace quanta {

// spin: the default; the next request is seen within nanoseconds, and the thread owns its CPU.
// yield: spin a while, then give the CPU to any other runnable thread (sched_yield), for
//   machines where a client or another service shares the runtime's CPUs.
// block: spin a while, then sleep in the kernel until there is work (a worker on a futex,
//   the dispatcher in epoll_wait on its sources' descriptors) when the thread can be woken
//   that way, and yield when it cannot (docs/runtime.md says when). An idle server uses no CPU.
enum class IdleMode { kSpin, kYield, kBlock };

// Parses "spin", "yield" or "block"; false for anything else.
inline bool parse_idle_mode(std::string_view text, IdleMode& mode) {
  if (text == "spin") {
    mode = IdleMode::kSpin;
  } else if (text == "yield") {
    mode = IdleMode::kYield;
  } else if (text == "block") {
    mode = IdleMode::kBlock;
  } else {
    return false;
  }
  return true;
}

inline const char* idle_mode_name(IdleMode mode) {
  switch (mode) {
    case IdleMode::kSpin: return "spin";
    case IdleMode::kYield: return "yield";
    case IdleMode::kBlock: return "block";
  }
  return "?";
}

}  // namespace quanta
