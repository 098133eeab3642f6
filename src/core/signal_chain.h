// Passing a signal on to the handler the application had installed before the runtime
// installed its own (the runtime's SIGSEGV reporter and its preemption signal handler
// take only what is theirs).
#pragma once

#include <signal.h>

namespace quanta {

// Called from a signal handler with what it received: runs `previous` as the kernel
// would have. A function handler is called (with siginfo when it asked for it); SIG_IGN
// does nothing; SIG_DFL restores the default action and raises the signal again, so a
// fault still ends the process as the default says (the default of a signal that is
// ignored by default, like SIGURG, is to do nothing).
inline void chain_to(const struct sigaction& previous, int sig, siginfo_t* info, void* context) {
  if ((previous.sa_flags & SA_SIGINFO) != 0) {
    if (previous.sa_sigaction != nullptr) previous.sa_sigaction(sig, info, context);
    return;
  }
  if (previous.sa_handler == SIG_IGN) return;
  if (previous.sa_handler == SIG_DFL) {
    if (sig == SIGURG || sig == SIGCHLD || sig == SIGWINCH) return;  // default: ignore
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  previous.sa_handler(sig);
}

}  // namespace quanta
