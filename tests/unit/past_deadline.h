// For tests of what a probe does past its deadline: runs a preemptible function whose every
// quantum is one cycle long, so each clock check it makes yields, until it completes.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "quanta/fn.h"

namespace quanta::testing {

// Returns how many times `fn` yielded (0 if it could not be launched, a failure).
inline uint64_t yields_running_past_deadline(void (*fn)(void*), void* arg) {
  quanta_fn* f = quanta_fn_launch(fn, arg, 1, 0);
  EXPECT_NE(f, nullptr);
  if (f == nullptr) return 0;
  while (!quanta_fn_resume(f, 1)) {
  }
  const uint64_t yields = quanta_fn_yields(f);
  quanta_fn_destroy(f);
  return yields;
}

}  // namespace quanta::testing
