#include "runtime/cpu_layout.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace quanta {
namespace {

cpu_set_t mask_of(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  return set;
}

std::vector<int> cpus_of(const cpu_set_t& set) {
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

}  // namespace

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return {0};
  return cpus_of(set);
}

unsigned max_workers() {
  const auto cpus = static_cast<unsigned>(allowed_cpus().size());
  return std::max(1u, cpus - 1);
}

PinnedThread::PinnedThread(int cpu, std::function<void()> body) : body_(std::move(body)) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  const cpu_set_t set = mask_of({cpu});
  pthread_attr_setaffinity_np(&attr, sizeof set, &set);
  pthread_t thread;
  const int error = pthread_create(&thread, &attr, &PinnedThread::trampoline, this);
  pthread_attr_destroy(&attr);
  if (error != 0) {
    throw std::runtime_error("cannot start a thread on CPU " + std::to_string(cpu) + ": " + std::strerror(error));
  }
  handle_ = thread;
}

PinnedThread::~PinnedThread() { join(); }

void PinnedThread::join() {
  if (joined_) return;
  pthread_join(static_cast<pthread_t>(handle_), nullptr);
  joined_ = true;
}

void* PinnedThread::trampoline(void* self) {
  static_cast<PinnedThread*>(self)->body_();
  return nullptr;
}

ScopedPin::ScopedPin(int cpu) : previous_(allowed_cpus()) {
  const cpu_set_t set = mask_of({cpu});
  sched_setaffinity(0, sizeof set, &set);
}

ScopedPin::~ScopedPin() {
  const cpu_set_t set = mask_of(previous_);
  sched_setaffinity(0, sizeof set, &set);
}

}  // namespace quanta
