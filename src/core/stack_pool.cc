#include "core/stack_pool.h"

#include "core/signal_chain.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>

namespace quanta {
namespace {

std::size_t page_bytes() {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// Guard regions known to the fault reporter: a small fixed table, written at pool
// creation and read from the signal handler (hence atomics, no locks).
constexpr int kMaxGuardedPools = 256;
struct GuardedRange {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<uintptr_t> slot_bytes{0};
};
GuardedRange g_guarded[kMaxGuardedPools];

void register_pool(char* mapping, std::size_t bytes, std::size_t slot_bytes) {
  for (auto& range : g_guarded) {
    uintptr_t expected = 0;
    if (range.begin.compare_exchange_strong(expected, reinterpret_cast<uintptr_t>(mapping))) {
      range.slot_bytes.store(slot_bytes);
      range.end.store(reinterpret_cast<uintptr_t>(mapping) + bytes);
      return;
    }
  }
}

void unregister_pool(char* mapping) {
  for (auto& range : g_guarded) {
    if (range.begin.load() == reinterpret_cast<uintptr_t>(mapping)) {
      range.end.store(0);
      range.begin.store(0);
      return;
    }
  }
}

bool in_guard_page(uintptr_t addr) {
  for (auto& range : g_guarded) {
    const uintptr_t begin = range.begin.load(std::memory_order_relaxed);
    const uintptr_t end = range.end.load(std::memory_order_relaxed);
    if (begin == 0 || addr < begin || addr >= end) continue;
    return (addr - begin) % range.slot_bytes.load(std::memory_order_relaxed) < page_bytes();
  }
  return false;
}

// What the application had installed for SIGSEGV before the runtime.
struct sigaction g_previous_segv {};

[[maybe_unused]] void on_segv(int sig, siginfo_t* info, void* context) {
  if (in_guard_page(reinterpret_cast<uintptr_t>(info->si_addr))) {
    static const char msg[] =
        "quanta: task stack overflow (hit the guard page); raise --stack-kib\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    // Re-raise with the default action so the process dies with SIGSEGV as usual.
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  // Not a task stack's fault: the application's business (a handler of its own that maps
  // the page and returns, say), or the default death when it had none.
  chain_to(g_previous_segv, sig, info, context);
}

// The alternate signal stack the overflow handler runs on, one per thread that runs tasks
// (sigaltstack is per thread). Mapped rather than a thread_local array: thread-locals of a
// dlopen'ed libquanta.so that the probes reach with initial-exec accesses must fit in
// glibc's small static TLS reserve, and 64 KiB would not. A thread-specific key, not a
// thread_local, remembers the mapping, so the library adds no TLS for it at all; its
// destructor unmaps the stack when the thread exits.
constexpr std::size_t kAltStackBytes = 64 * 1024;
pthread_key_t g_alt_stack_key;
pthread_once_t g_alt_stack_key_once = PTHREAD_ONCE_INIT;

std::size_t alt_stack_mapping_bytes() { return kAltStackBytes + page_bytes(); }

void release_alt_stack(void* mapping) {
  // Stop using it first, unless the thread has switched to another stack since.
  char* const stack = static_cast<char*>(mapping) + page_bytes();
  stack_t current{};
  if (sigaltstack(nullptr, &current) == 0 && current.ss_sp == stack) {
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
  }
  munmap(mapping, alt_stack_mapping_bytes());
}

void create_alt_stack_key() { pthread_key_create(&g_alt_stack_key, &release_alt_stack); }

// Gives the calling thread its alternate signal stack, once. On failure the thread goes
// without: an overflow then still kills the process, only without the message.
[[maybe_unused]] void ensure_alt_stack() {
  pthread_once(&g_alt_stack_key_once, &create_alt_stack_key);
  if (pthread_getspecific(g_alt_stack_key) != nullptr) return;
  void* mapping = mmap(nullptr, alt_stack_mapping_bytes(), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (mapping == MAP_FAILED) return;
  // A guard page below it, like the task stacks': a handler that overflowed it would
  // otherwise write into whatever is mapped next.
  mprotect(mapping, page_bytes(), PROT_NONE);
  stack_t alt{};
  alt.ss_sp = static_cast<char*>(mapping) + page_bytes();
  alt.ss_size = kAltStackBytes;
  if (sigaltstack(&alt, nullptr) != 0 || pthread_setspecific(g_alt_stack_key, mapping) != 0) {
    release_alt_stack(mapping);
  }
}

}  // namespace

StackPool::StackPool(std::size_t count, std::size_t stack_bytes)
    : count_(count), stack_bytes_(round_up(stack_bytes, page_bytes())) {
  slot_bytes_ = stack_bytes_ + page_bytes();
  mapping_bytes_ = slot_bytes_ * count_;
  void* mem = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) {
    throw std::runtime_error("cannot map " + std::to_string(count_) + " task stacks of " +
                             std::to_string(stack_bytes_) + " bytes: " + std::strerror(errno));
  }
  mapping_ = static_cast<char*>(mem);
  for (std::size_t i = 0; i < count_; ++i) {
    // The guard sits at the low end of each slot: stacks grow down into it.
    if (mprotect(mapping_ + i * slot_bytes_, page_bytes(), PROT_NONE) != 0) {
      munmap(mapping_, mapping_bytes_);
      throw std::runtime_error(std::string("cannot protect a stack guard page: ") + std::strerror(errno));
    }
  }
  free_.reserve(count_);
  for (std::size_t i = count_; i-- > 0;) free_.push_back(static_cast<uint32_t>(i));
  register_pool(mapping_, mapping_bytes_, slot_bytes_);
}

StackPool::~StackPool() {
  unregister_pool(mapping_);
  munmap(mapping_, mapping_bytes_);
}

StackRegion StackPool::acquire() {
  if (free_.empty()) return {};
  const uint32_t index = free_.back();
  free_.pop_back();
  return {mapping_ + index * slot_bytes_ + page_bytes(), stack_bytes_};
}

void StackPool::release(StackRegion stack) {
  const auto offset = static_cast<std::size_t>(static_cast<char*>(stack.base) - mapping_);
  free_.push_back(static_cast<uint32_t>(offset / slot_bytes_));
}

void install_stack_overflow_reporter() {
#if !defined(QUANTA_ASAN)  // ASan reports overflows itself and owns SIGSEGV
  // The handler cannot run on the overflowed stack.
  ensure_alt_stack();
  static std::atomic<bool> handler_installed{false};
  if (handler_installed.exchange(true)) return;
  struct sigaction action {};
  action.sa_sigaction = &on_segv;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &g_previous_segv);
#endif
}

}  // namespace quanta
