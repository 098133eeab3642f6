#include "linux_runtime/cpu_timed_handler.h"

#include "core/tsc.h"
#include "runtime/request_run.h"

namespace quanta {

CpuTimedHandler::CpuTimedHandler(const quanta_app& app, std::size_t stack_bytes)
    : app_(app),
      stacks_(1, stack_bytes),
      stack_(stacks_.acquire()),
      slice_cycles_(ns_to_cycles(kSliceNs)),
      gap_cycles_(ns_to_cycles(kOffCpuGapNs)) {
  install_stack_overflow_reporter();
}

CpuTimedHandler::~CpuTimedHandler() { stacks_.release(stack_); }

void CpuTimedHandler::body(Task& task) {
  auto& self = *static_cast<CpuTimedHandler*>(task.user);
  call_handler(self.app_, *self.request_);
}

CpuTimedHandler::Outcome CpuTimedHandler::call(Request& request) {
  Outcome outcome;
  request_ = &request;
  task_.start(stack_, &CpuTimedHandler::body, this);
  uint64_t start = read_tsc();
  for (;;) {
    const bool done = runner_.resume(task_, start, start + slice_cycles_);
    const uint64_t wall = task_.last_stop_tsc - start;
    if (wall > slice_cycles_ + gap_cycles_) {
      const uint64_t away = wall - slice_cycles_;
      ++outcome.off_cpu_gaps;
      outcome.off_cpu_cycles += away;
      task_.attained_cycles -= away;
    }
    if (done) break;
    start = task_.last_stop_tsc;
  }
  return outcome;
}

}  // namespace quanta
