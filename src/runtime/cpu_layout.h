// Which CPUs the run may use, and threads that start already pinned. A spinning thread
// that created a child on its own CPU would starve it until the kernel migrated it, so
// the CPU is set in the thread attributes, before the thread exists.
#pragma once

#include <functional>
#include <vector>

namespace quanta {

// CPUs in this process's affinity mask, in ascending order.
std::vector<int> allowed_cpus();

// Largest worker count a run may use here: one CPU is the dispatcher's; at least 1.
unsigned max_workers();

class PinnedThread {
 public:
  // Throws std::runtime_error naming the CPU if the thread cannot be created there.
  PinnedThread(int cpu, std::function<void()> body);
  ~PinnedThread();
  PinnedThread(const PinnedThread&) = delete;
  PinnedThread& operator=(const PinnedThread&) = delete;
  void join();

 private:
  static void* trampoline(void* self);
  std::function<void()> body_;
  unsigned long handle_ = 0;  // pthread_t
  bool joined_ = false;
};

// Pins the calling thread to `cpu` for its lifetime and restores the old mask on scope exit.
class ScopedPin {
 public:
  explicit ScopedPin(int cpu);
  ~ScopedPin();

 private:
  std::vector<int> previous_;
};

}  // namespace quanta
