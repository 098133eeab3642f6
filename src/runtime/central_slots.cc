#include "runtime/central_slots.h"

#include "runtime/request_run.h"

namespace quanta {

CentralSlots::CentralSlots(uint32_t count, std::size_t stack_bytes, const quanta_app& app,
                           void (*dispatcher_handler)(const quanta_request*, quanta_response*))
    : slots_(count),
      dispatcher_handler_(dispatcher_handler != nullptr ? dispatcher_handler : app.handle_request),
      stacks_(count, stack_bytes) {
  free_.reserve(count);
  for (uint32_t i = count; i-- > 0;) {
    slots_[i].app = &app;
    free_.push_back(i);
  }
}

void CentralSlots::task_body(Task& task) {
  auto& slot = *static_cast<CentralSlot*>(task.user);
  call_handler(slot.handler, *slot.request);
}

std::optional<uint32_t> CentralSlots::acquire(Request& request) {
  if (free_.empty()) return std::nullopt;
  const uint32_t id = free_.back();
  free_.pop_back();
  CentralSlot& slot = slots_[id];
  slot.request = &request;
  slot.quanta = 0;
  slot.last_runner = -1;
  slot.handler = slot.app->handle_request;
  slot.task.start(stacks_.acquire(), &CentralSlots::task_body, &slot);
  return id;
}

void CentralSlots::release(uint32_t id) {
  stacks_.release(slots_[id].task.stack);
  slots_[id].request = nullptr;
  free_.push_back(id);
}

}  // namespace quanta
