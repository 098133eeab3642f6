#include "core/context.h"

#include <boost/context/detail/fcontext.hpp>
#include <cstdlib>

#if defined(QUANTA_ASAN)
#include <sanitizer/asan_interface.h>
#endif
#if defined(QUANTA_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace bctx = boost::context::detail;

namespace quanta {
namespace {

void fcontext_entry(bctx::transfer_t transfer);

}  // namespace

// ASan bookkeeping lives in these two helpers so the switch itself reads plainly.
// `finished` tells ASan the leaving side will never come back.
#if defined(QUANTA_ASAN)
#define QUANTA_ASAN_LEAVE(from, to, finished) \
  __sanitizer_start_switch_fiber((finished) ? nullptr : &(from).asan_fake_stack_, (to).asan_bottom_, (to).asan_size_)
#define QUANTA_ASAN_ARRIVE(self, prev) \
  __sanitizer_finish_switch_fiber((self).asan_fake_stack_, &(prev).asan_bottom_, &(prev).asan_size_)
#else
#define QUANTA_ASAN_LEAVE(from, to, finished) ((void)0)
#define QUANTA_ASAN_ARRIVE(self, prev) ((void)0)
#endif

// TSan: a task runs as a fiber of its own, made when its context is prepared; a thread's own
// context takes whatever fiber the thread was on when it switched away. The switch itself
// synchronizes (flag 0): what one side wrote before the jump, the other side may read after.
#if defined(QUANTA_TSAN)
#define QUANTA_TSAN_LEAVE(from, to)                                    \
  do {                                                                 \
    if (!(from).tsan_owned_) (from).tsan_fiber_ = __tsan_get_current_fiber(); \
    __tsan_switch_to_fiber((to).tsan_fiber_, 0);                       \
  } while (0)

Context::~Context() {
  if (tsan_owned_) __tsan_destroy_fiber(tsan_fiber_);
}
#else
#define QUANTA_TSAN_LEAVE(from, to) ((void)0)
#endif

void Context::prepare(StackRegion stack, Entry entry, void* arg) {
  stack_ = stack;
  entry_ = entry;
  arg_ = arg;
  // fcontext grows down from the top of the region.
  fctx_ = bctx::make_fcontext(static_cast<char*>(stack.base) + stack.size, stack.size,
                              &fcontext_entry);
#if defined(QUANTA_ASAN)
  asan_fake_stack_ = nullptr;
  asan_bottom_ = stack.base;
  asan_size_ = stack.size;
#endif
#if defined(QUANTA_TSAN)
  // A context is prepared again only once its task has finished (switch_final): its old
  // fiber is no thread's current one.
  if (tsan_owned_) __tsan_destroy_fiber(tsan_fiber_);
  tsan_fiber_ = __tsan_create_fiber(0);
  tsan_owned_ = true;
#endif
}

void Context::first_entry(void* self_raw, void* caller_fctx) {
  auto* self = static_cast<Context*>(self_raw);
  Context* prev = self->resumer_;
  prev->fctx_ = caller_fctx;
  QUANTA_ASAN_ARRIVE(*self, *prev);
  self->entry_(self->arg_);
  std::abort();  // an entry must end with switch_final
}

namespace {
// Where a prepared stack starts: fcontext hands over the caller's context and ourselves.
void fcontext_entry(bctx::transfer_t transfer) { Context::first_entry(transfer.data, transfer.fctx); }
}  // namespace

// Only long-lived Context objects cross a jump (never a pointer into the stack being left,
// which under ASan may be a fake stack frame): `to` learns who resumed it in resumer_.
void Context::switch_to(Context& from, Context& to) {
  to.resumer_ = &from;
  QUANTA_ASAN_LEAVE(from, to, false);
  QUANTA_TSAN_LEAVE(from, to);
  bctx::transfer_t back = bctx::jump_fcontext(to.fctx_, &to);
  // Resumed: remember where the side that resumed us stopped.
  from.resumer_->fctx_ = back.fctx;
  QUANTA_ASAN_ARRIVE(from, *from.resumer_);
}

void Context::switch_final(Context& from, Context& to) {
  to.resumer_ = &from;
  QUANTA_ASAN_LEAVE(from, to, true);
  QUANTA_TSAN_LEAVE(from, to);
  bctx::jump_fcontext(to.fctx_, &to);
  std::abort();  // a finished context is never resumed
}

}  // namespace quanta
