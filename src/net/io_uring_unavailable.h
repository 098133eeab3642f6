// The error of a front end asked to use io_uring where it cannot be set up (disabled by
// kernel.io_uring_disabled, refused by a seccomp filter, out of memory, an old kernel), so
// that `quanta serve` can tell it from a socket error and name the option that asked.
#pragma once

#include <stdexcept>

namespace quanta {

class IoUringUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace quanta
