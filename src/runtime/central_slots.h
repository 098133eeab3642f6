// Task slots shared by all workers, for the centralized dispatch policies (central,
// jbsq:K, steal). A slot is a request's execution state: its task (context and stack) and
// the request it runs. The dispatcher owns the table: it fills a slot when a request
// arrives, hands its index to a worker for one quantum at a time, and frees it when the
// worker reports it finished. A preempted task goes back to the dispatcher's queue and may
// resume on another worker, stack and all (migration).
//
// Ownership moves with the index over single-producer/single-consumer rings (release on
// push, acquire on pop), so a slot is touched by one thread at a time and needs no lock.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/stack_pool.h"
#include "core/task.h"
#include "quanta/quanta.h"
#include "runtime/request.h"

namespace quanta {

struct CentralSlot {
  Task task;
  Request* request = nullptr;
  const quanta_app* app = nullptr;
  // What the task calls: the app's handle_request, or its clock twin when the dispatcher
  // runs it under --preempt flag (CentralSlots::run_on_dispatcher). Read when the task
  // first runs, so it may be changed between acquire() and the first resume.
  void (*handler)(const quanta_request*, quanta_response*) = nullptr;
  uint32_t quanta = 0;      // quanta it has run
  int32_t last_runner = -1; // worker index of its previous quantum; -1: never ran; kDispatcherRunner
};

// What a worker sends back after running a slot for one quantum.
struct SlotReturn {
  uint32_t slot;
  uint32_t finished;  // 1: done, the dispatcher frees it; 0: preempted, it goes back in the queue
};

inline constexpr int32_t kDispatcherRunner = -2;  // a slot the dispatcher runs itself

class CentralSlots {
 public:
  // `count` slots, each with a stack of `stack_bytes` (mapped now, with guard pages).
  // `dispatcher_handler`: what a request the dispatcher runs itself calls (null: the
  // app's handle_request).
  CentralSlots(uint32_t count, std::size_t stack_bytes, const quanta_app& app,
               void (*dispatcher_handler)(const quanta_request*, quanta_response*) = nullptr);

  // Takes a free slot for `request` and prepares its task; nullopt when all are in use.
  std::optional<uint32_t> acquire(Request& request);
  void release(uint32_t id);
  // Marks a slot not yet run as the dispatcher's own: it runs there, with the
  // dispatcher's handler.
  void run_on_dispatcher(uint32_t id) {
    slots_[id].last_runner = kDispatcherRunner;
    slots_[id].handler = dispatcher_handler_;
  }

  CentralSlot& operator[](uint32_t id) { return slots_[id]; }
  uint32_t capacity() const { return static_cast<uint32_t>(slots_.size()); }
  uint32_t in_use() const { return capacity() - static_cast<uint32_t>(free_.size()); }

 private:
  static void task_body(Task& task);

  std::vector<CentralSlot> slots_;
  void (*dispatcher_handler_)(const quanta_request*, quanta_response*);
  StackPool stacks_;
  std::vector<uint32_t> free_;  // reserved up front: never allocates
};

}  // namespace quanta
