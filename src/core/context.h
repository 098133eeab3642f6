// Stackful context switch on Boost.Context's fcontext (the assembly jump, no allocation),
// with the AddressSanitizer fiber annotations so ASan follows execution onto task stacks,
// and ThreadSanitizer's (QUANTA_TSAN) so TSan keeps a task's history with the task, on
// whichever thread it resumes, rather than mixing it into the thread that ran it last.
#pragma once

#include <cstddef>

namespace quanta {

struct StackRegion {
  void* base = nullptr;  // lowest usable address (just above the guard page)
  std::size_t size = 0;  // usable bytes
};

// One side of a switch: a task, or the scheduler loop that resumes tasks.
class Context {
 public:
  using Entry = void (*)(void* arg);

  Context() = default;
#if defined(QUANTA_TSAN)
  ~Context();
#endif
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Prepares this context to run entry(arg) on `stack` at the next switch_to. The entry
  // must never return; it ends by switch_final().
  void prepare(StackRegion stack, Entry entry, void* arg);

  // Saves the current execution into `from` and continues `to`.
  static void switch_to(Context& from, Context& to);
  // Like switch_to, but `from` is finished and will not be resumed (lets ASan drop the
  // fake stack of the finished side).
  [[noreturn]] static void switch_final(Context& from, Context& to);

  // Internal: first code run on a prepared stack (called from the fcontext entry).
  [[noreturn]] static void first_entry(void* record, void* caller_fctx);

 private:

  void* fctx_ = nullptr;  // boost::context::detail::fcontext_t of the suspended side
  Context* resumer_ = nullptr;  // the side that last switched to this one
  StackRegion stack_;      // empty for the thread's own stack
  Entry entry_ = nullptr;
  void* arg_ = nullptr;
#if defined(QUANTA_ASAN)
  void* asan_fake_stack_ = nullptr;
  const void* asan_bottom_ = nullptr;  // stack bounds of this side, as ASan reports them
  std::size_t asan_size_ = 0;
#endif
#if defined(QUANTA_TSAN)
  void* tsan_fiber_ = nullptr;  // a task's own fiber (made by prepare), or the thread's while it is switched out
  bool tsan_owned_ = false;     // tsan_fiber_ was made by prepare and is destroyed here
#endif
};

}  // namespace quanta
