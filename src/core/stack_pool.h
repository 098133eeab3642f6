// A fixed set of task stacks mapped once at start-up, each with a PROT_NONE guard page
// below it, so an overflow faults instead of corrupting the neighbouring stack.
// Acquire and release are O(1) and allocation-free (a free list of indices); a pool
// belongs to one worker thread and is not shared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/context.h"

namespace quanta {

class StackPool {
 public:
  // Maps `count` stacks of `stack_bytes` (rounded up to pages). Throws std::runtime_error
  // naming the failing size if the mapping fails.
  StackPool(std::size_t count, std::size_t stack_bytes);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  // Returns an empty region when every stack is in use.
  StackRegion acquire();
  void release(StackRegion stack);

  std::size_t capacity() const { return count_; }
  std::size_t available() const { return free_.size(); }
  std::size_t stack_bytes() const { return stack_bytes_; }

 private:
  std::size_t count_;
  std::size_t stack_bytes_;  // usable bytes of one stack
  std::size_t slot_bytes_;   // guard page + stack
  char* mapping_ = nullptr;
  std::size_t mapping_bytes_ = 0;
  std::vector<uint32_t> free_;  // reserved to `count_` up front: push/pop never allocate
};

// Installs (once per process) a SIGSEGV handler that names a task stack overflow when the
// faulting address is in a guard page, then dies by SIGSEGV as usual; and gives the calling
// thread an alternate signal stack to run it on. Every thread that runs tasks calls it.
void install_stack_overflow_reporter();

}  // namespace quanta
