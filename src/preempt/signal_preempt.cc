#include "preempt/signal_preempt.h"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <link.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/signal_chain.h"
#include "core/task.h"
#include "preempt/preempt_state.h"
#include "quanta/quanta.h"

// The linker defines these for a section named quanta_text if any object has one; weak,
// so a program without such code links too.
extern "C" {
extern const char __start_quanta_text[] __attribute__((weak));
extern const char __stop_quanta_text[] __attribute__((weak));
}

namespace quanta {
namespace {

// Registered ranges: a small fixed table, written at set-up, read in the handler.
constexpr int kMaxRanges = 64;
struct Range {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
};
Range g_ranges[kMaxRanges];
std::atomic<int> g_range_count{0};

thread_local SignalCounters t_counters;

// What the application had installed for the preemption signal before the runtime: it
// still gets every such signal the runtime did not send.
struct sigaction g_previous_action {};

uintptr_t interrupted_pc(const void* raw_context) {
  return static_cast<uintptr_t>(static_cast<const ucontext_t*>(raw_context)->uc_mcontext.gregs[REG_RIP]);
}

void note_pc(PreemptState& state, uintptr_t pc) {
  if (state.pc_sample == nullptr) return;
  state.pc_sample->store(pc, std::memory_order_relaxed);
  state.pc_samples->fetch_add(1, std::memory_order_release);
}

void on_preempt_signal(int sig, siginfo_t* info, void* raw_context) {
  if (info != nullptr && info->si_code == SI_QUEUE && info->si_pid == getpid() &&
      info->si_value.sival_int == kPcSampleRequest) {
    note_pc(preempt_state(), interrupted_pc(raw_context));
    return;
  }
  // Ours come from the monitor's tgkill in this process; anything else (TCP urgent data,
  // another program's kill) is the application's.
  if (info == nullptr || info->si_code != SI_TKILL || info->si_pid != getpid()) {
    chain_to(g_previous_action, sig, info, raw_context);
    return;
  }
  PreemptState& state = preempt_state();
  SignalCounters& counters = t_counters;
  ++counters.received;
  // Not in a task, already on the way out of one, or the quantum this signal was sent for
  // is over (signals are not queued: a late one must not cut a fresh quantum short).
  if (!state.in_task || state.signal_switching || quanta_read_tsc() < state.signal_deadline_tsc) {
    ++counters.stale;
    return;
  }
  const uintptr_t pc = interrupted_pc(raw_context);
  if (state.disable_depth > 0 || !is_signal_safe_code(pc)) {
    // Make the next probe (or the enable) take the slow path and yield.
    state.pending = true;
    quanta_deadline_tsc = 0;
    ++counters.deferred;
    if (counters.deferred_sites_kept < SignalCounters::kDeferredSitesKept) {
      counters.deferred_sites[counters.deferred_sites_kept++] = pc;
    }
    note_pc(state, pc);  // where a quantum overran: the watchdog names it
    return;
  }
  ++counters.switched;
  state.signal_switching = true;  // a second signal before the switch must not switch again
  TaskRunner::current()->yield_running();
  // Resumed by a scheduler, perhaps on another thread: the handler returns and sigreturn
  // restores the registers, and also the alternate signal stack saved at delivery, which
  // is the first thread's. The thread it returns on keeps its own.
  auto* context = static_cast<ucontext_t*>(raw_context);
  stack_t own{};
  if (sigaltstack(nullptr, &own) == 0) context->uc_stack = own;
}

int add_object_of(struct dl_phdr_info* info, size_t, void* wanted) {
  const auto address = reinterpret_cast<uintptr_t>(wanted);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    const uintptr_t end = begin + ph.p_memsz;
    if (address >= begin && address < end) {
      quanta_register_signal_safe_code(reinterpret_cast<const void*>(begin), reinterpret_cast<const void*>(end));
      return 1;
    }
  }
  return 0;
}

}  // namespace

SignalCounters& signal_counters() { return t_counters; }

bool request_pc_sample(int pid, int tid) {
  siginfo_t info{};
  info.si_signo = kPreemptSignal;
  info.si_code = SI_QUEUE;
  info.si_pid = pid;
  info.si_uid = getuid();
  info.si_value.sival_int = kPcSampleRequest;
  return syscall(SYS_rt_tgsigqueueinfo, pid, tid, kPreemptSignal, &info) == 0;
}

bool is_signal_safe_code(uintptr_t pc) {
  if (__start_quanta_text != nullptr && pc >= reinterpret_cast<uintptr_t>(__start_quanta_text) &&
      pc < reinterpret_cast<uintptr_t>(__stop_quanta_text)) {
    return true;
  }
  const int n = g_range_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) {
    if (pc >= g_ranges[i].begin.load(std::memory_order_relaxed) && pc < g_ranges[i].end.load(std::memory_order_relaxed)) {
      return true;
    }
  }
  return false;
}

void install_preempt_signal_handler() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  struct sigaction action {};
  action.sa_sigaction = &on_preempt_signal;
  // SA_NODEFER: the handler may switch to another task and not return for a while; the
  // signal must stay deliverable meanwhile. SA_RESTART: interrupted system calls resume.
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(kPreemptSignal, &action, &g_previous_action) != 0) {
    installed.store(false);
    throw std::runtime_error(std::string("cannot install the preemption signal handler: ") + std::strerror(errno));
  }
}

}  // namespace quanta

extern "C" {

int quanta_register_signal_safe_code(const void* begin, const void* end) {
  const int index = quanta::g_range_count.load();
  if (index >= quanta::kMaxRanges) return -1;
  quanta::g_ranges[index].begin.store(reinterpret_cast<uintptr_t>(begin));
  quanta::g_ranges[index].end.store(reinterpret_cast<uintptr_t>(end));
  quanta::g_range_count.store(index + 1, std::memory_order_release);
  return 0;
}

int quanta_register_signal_safe_object(const void* any_address) {
  return dl_iterate_phdr(&quanta::add_object_of, const_cast<void*>(any_address)) == 1 ? 0 : -1;
}

}  // extern "C"
