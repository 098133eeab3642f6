#include "runtime/doorbell.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace quanta {

Doorbell::Doorbell() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (fd_ < 0) throw std::runtime_error(std::string("eventfd failed: ") + std::strerror(errno));
}

Doorbell::~Doorbell() { ::close(fd_); }

void Doorbell::disarm() {
  // Still armed: nobody rang, nothing was written.
  if (armed_.exchange(false, std::memory_order_acq_rel)) return;
  uint64_t count = 0;
  // Nonblocking: nothing to read when nobody rang.
  [[maybe_unused]] const ssize_t got = ::read(fd_, &count, sizeof count);
}

void Doorbell::write_event() {
  const uint64_t one = 1;
  // Can only fail when the counter is near 2^64: the dispatcher is awake then anyway.
  [[maybe_unused]] const ssize_t put = ::write(fd_, &one, sizeof one);
}

}  // namespace quanta
