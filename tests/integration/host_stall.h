// Playing the host in tests: a thread stops when a signal lands on it whose handler sleeps,
// a gap its own code cannot explain, as when the VM takes its CPU away. Shared by the
// tests of stall detection and of which requests a stall touched.
#pragma once

#include <signal.h>
#include <time.h>

#include <cerrno>

#include "quanta/quanta.h"

namespace quanta {

// Routes SIGUSR2 to `sleeper` (which should sleep); true on success. The caller restores
// the default with signal(SIGUSR2, SIG_DFL) when done.
inline bool stall_on_sigusr2(void (*sleeper)(int)) {
  struct sigaction action {};
  action.sa_handler = sleeper;
  sigemptyset(&action.sa_mask);
  return sigaction(SIGUSR2, &action, nullptr) == 0;
}

// Sleeps `ns` in full, as the host's stall would: a signal that lands meanwhile (the
// watchdog's sample, runtime/quantum_watchdog.h) does not cut it short.
inline void stall_for_ns(long ns) {
  timespec until{};
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_nsec += ns % 1'000'000'000;
  until.tv_sec += ns / 1'000'000'000 + until.tv_nsec / 1'000'000'000;
  until.tv_nsec %= 1'000'000'000;
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr) == EINTR) {
  }
}

// An app with only a handler.
inline quanta_app handler_only_app(const char* name, void (*handle)(const quanta_request*, quanta_response*)) {
  quanta_app app{};
  app.abi_version = QUANTA_APP_ABI_VERSION;
  app.name = name;
  app.handle_request = handle;
  return app;
}

}  // namespace quanta
