#include "runtime/dispatcher_sleep.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>

#include "core/idle_backoff.h"
#include "core/tsc.h"

namespace quanta {

DispatcherSleep::DispatcherSleep(Doorbell& wake, std::size_t source_count)
    : wake_(wake), epoll_fd_(epoll_create1(EPOLL_CLOEXEC)) {
  if (epoll_fd_ < 0) throw std::runtime_error(std::string("epoll_create1 failed: ") + std::strerror(errno));
  watched_.reserve(IdleWait::kMaxFds * (source_count + 1));
  prepared_.reserve(source_count);
  watch(wake_.fd());
}

DispatcherSleep::~DispatcherSleep() { ::close(epoll_fd_); }

void DispatcherSleep::watch(int fd) {
  if (std::find(watched_.begin(), watched_.end(), fd) != watched_.end()) return;
  epoll_event e{};
  e.events = EPOLLIN;
  e.data.fd = fd;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &e) == 0) watched_.push_back(fd);
}

DispatcherSleep::Outcome DispatcherSleep::try_sleep(std::span<Source* const> sources) {
  IdleWait wait;
  wake_.arm();
  prepared_.clear();
  bool can = true;
  for (Source* source : sources) {
    if (source->exhausted()) continue;
    if (!source->prepare_idle_wait(wait)) {
      can = false;
      break;
    }
    prepared_.push_back(source);
  }
  Outcome outcome = can ? Outcome::kSlept : Outcome::kCannot;
  timespec timeout{};
  const timespec* timeout_ptr = nullptr;
  if (can && wait.due_tsc != IdleWait::kNever) {
    const uint64_t now = read_tsc();
    const uint64_t early = ns_to_cycles(kWakeEarlyNs);
    if (wait.due_tsc <= now + 2 * early) {
      outcome = Outcome::kSoon;
    } else {
      const auto ns = static_cast<uint64_t>(cycles_to_ns(wait.due_tsc - early - now));
      timeout.tv_sec = static_cast<time_t>(ns / 1000000000u);
      timeout.tv_nsec = static_cast<long>(ns % 1000000000u);
      timeout_ptr = &timeout;
    }
  }
  if (outcome == Outcome::kSlept) {
    for (int i = 0; i < wait.fd_count; ++i) watch(wait.fds[i]);
    epoll_event events[8];
    // Level-triggered: a descriptor that is readable now returns at once. EINTR (a
    // signal, or io_uring's task work) just ends the sleep early.
    epoll_pwait2(epoll_fd_, events, 8, timeout_ptr, nullptr);
    ++sleeps_;
  }
  for (Source* source : prepared_) source->end_idle_wait();
  wake_.disarm();
  return outcome;
}

bool DispatcherSleep::sleep_or_yield(std::span<Source* const> sources) {
  switch (try_sleep(sources)) {
    case Outcome::kSlept: return true;
    case Outcome::kSoon: cpu_relax(); return false;
    case Outcome::kCannot: IdleBackoff::yield(); return false;
  }
  return false;
}

}  // namespace quanta
