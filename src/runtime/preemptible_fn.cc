// The preemptible-function API (include/quanta/fn.h) on top of Task and TaskRunner. Each
// function call owns a one-stack pool, so its stack has a guard page like any task's.
// Misuse is refused with errno (see fn.h); a handle used after quanta_fn_destroy is caught
// by its cleared magic word while the freed memory still holds it, and aborts naming it.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>

#include "core/stack_pool.h"
#include "core/task.h"
#include "core/tsc.h"
#include "preempt/quantum_runner.h"
#include "quanta/fn.h"

namespace {
constexpr uint64_t kLiveMagic = 0x71756e74615f666eull;  // "qunta_fn"
constexpr uint64_t kDeadMagic = 0x64657374726f7964ull;  // "destroyd": never live again
}  // namespace

struct quanta_fn {
  std::unique_ptr<quanta::StackPool> stacks;
  quanta::Task task;
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;
  // Last: the allocator reuses the first words of a freed block for its own lists.
  uint64_t magic = kLiveMagic;
};

namespace {

constexpr uint64_t kDefaultStackBytes = 64 * 1024;

thread_local quanta::QuantumRunner t_fn_runner QUANTA_TLS;
// The preemptible function running on this thread, if any: the runner is in use, so a
// launch or resume from inside it is refused (it would overwrite the outer function's
// state), and it must not be destroyed from inside itself.
thread_local quanta_fn* t_running_fn QUANTA_TLS = nullptr;

void run_fn(quanta::Task& task) {
  auto* f = static_cast<quanta_fn*>(task.user);
  f->fn(f->arg);
}

// The deadline `quantum_cycles` after now, saturating instead of wrapping.
uint64_t deadline_after(uint64_t now, uint64_t quantum_cycles) {
  if (quantum_cycles == 0 || quantum_cycles >= quanta::QuantumRunner::kNoDeadline - now) {
    return quanta::QuantumRunner::kNoDeadline;
  }
  return now + quantum_cycles;
}

bool run_quantum(quanta_fn* f, uint64_t quantum_cycles) {
  const uint64_t now = quanta::read_tsc();
  t_running_fn = f;
  const bool done = t_fn_runner.resume(f->task, now, deadline_after(now, quantum_cycles));
  t_running_fn = nullptr;
  return done;
}

// A handle fn.h's calls may use: NULL is refused (EINVAL); a destroyed one aborts.
bool usable(const quanta_fn* f, const char* call) {
  if (f == nullptr) {
    errno = EINVAL;
    return false;
  }
  if (f->magic != kLiveMagic) {
    std::fprintf(stderr, "quanta: %s on a destroyed or invalid quanta_fn handle\n", call);
    std::abort();
  }
  return true;
}

}  // namespace

extern "C" {

quanta_fn* quanta_fn_launch(void (*fn)(void*), void* arg, uint64_t quantum_cycles, uint64_t stack_bytes) {
  if (fn == nullptr || (stack_bytes != 0 && (stack_bytes < QUANTA_FN_MIN_STACK_BYTES ||
                                             stack_bytes > QUANTA_FN_MAX_STACK_BYTES))) {
    errno = EINVAL;
    return nullptr;
  }
  if (t_running_fn != nullptr) {
    errno = EDEADLK;
    return nullptr;
  }
  auto* f = new (std::nothrow) quanta_fn;
  if (f == nullptr) {
    errno = ENOMEM;
    return nullptr;
  }
  try {
    f->stacks = std::make_unique<quanta::StackPool>(1, stack_bytes ? stack_bytes : kDefaultStackBytes);
  } catch (...) {
    delete f;
    errno = ENOMEM;
    return nullptr;
  }
  quanta::install_stack_overflow_reporter();
  f->fn = fn;
  f->arg = arg;
  f->task.start(f->stacks->acquire(), &run_fn, f);
  run_quantum(f, quantum_cycles);
  return f;
}

int quanta_fn_resume(quanta_fn* f, uint64_t quantum_cycles) {
  if (!usable(f, "quanta_fn_resume")) return -1;
  if (t_running_fn != nullptr) {
    errno = EDEADLK;
    return -1;
  }
  if (f->task.finished) return 1;
  return run_quantum(f, quantum_cycles) ? 1 : 0;
}

int quanta_fn_completed(const quanta_fn* f) {
  if (!usable(f, "quanta_fn_completed")) return -1;
  return f->task.finished ? 1 : 0;
}

uint64_t quanta_fn_yields(const quanta_fn* f) { return usable(f, "quanta_fn_yields") ? f->task.yields : 0; }

uint64_t quanta_fn_last_stop_tsc(const quanta_fn* f) {
  return usable(f, "quanta_fn_last_stop_tsc") ? f->task.last_stop_tsc : 0;
}

void quanta_fn_destroy(quanta_fn* f) {
  if (f == nullptr) return;
  usable(f, "quanta_fn_destroy");  // a second destroy aborts
  if (f == t_running_fn) {
    std::fprintf(stderr, "quanta: quanta_fn_destroy of the function that is running\n");
    std::abort();
  }
  f->magic = kDeadMagic;
  delete f;
}

}  // extern "C"
