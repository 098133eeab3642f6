#include "core/context.h"

#include <boost/context/detail/fcontext.hpp>
#include <cstdlib>

#if defined(QUANTA_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace bctx = boost::context::detail;

namespace quanta {
namespace {

// Passed through the jump: lives on the stack of the side that jumps, which stays alive
// while that side is suspended.
struct SwitchRecord {
  Context* from;
  Context* to;
};

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
}

void Context::first_entry(void* record_raw, void* caller_fctx) {
  auto* record = static_cast<SwitchRecord*>(record_raw);
  Context* self = record->to;
  Context* prev = record->from;
  prev->fctx_ = caller_fctx;
  QUANTA_ASAN_ARRIVE(*self, *prev);
  self->entry_(self->arg_);
  std::abort();  // an entry must end with switch_final
}

namespace {
// Where a prepared stack starts: fcontext hands over the caller's context and our record.
void fcontext_entry(bctx::transfer_t transfer) { Context::first_entry(transfer.data, transfer.fctx); }
}  // namespace

void Context::switch_to(Context& from, Context& to) {
  SwitchRecord record{&from, &to};
  QUANTA_ASAN_LEAVE(from, to, false);
  bctx::transfer_t back = bctx::jump_fcontext(to.fctx_, &record);
  // Resumed: whoever jumped here passed its own record; remember where it stopped.
  auto* came_from = static_cast<SwitchRecord*>(back.data);
  came_from->from->fctx_ = back.fctx;
  QUANTA_ASAN_ARRIVE(from, *came_from->from);
}

void Context::switch_final(Context& from, Context& to) {
  SwitchRecord record{&from, &to};
  QUANTA_ASAN_LEAVE(from, to, true);
  bctx::jump_fcontext(to.fctx_, &record);
  std::abort();  // a finished context is never resumed
}

}  // namespace quanta
