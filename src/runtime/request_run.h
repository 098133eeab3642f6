// The two ends of running one request's handler, shared by every thread that runs
// handlers (workers, the dispatcher, the kernel-thread baseline): the call itself, which
// turns the request record into the app's view and the response back, and the finish,
// which stamps the record's times, records its statistics and hands it to its sink.
#pragma once

#include <cstdint>

#include "core/task.h"
#include "quanta/quanta.h"
#include "runtime/request.h"
#include "stats/request_recorder.h"
#include "stats/stall_log.h"

namespace quanta {

// Runs `handler` (the app's handle_request, or its clock twin) on `request` (inside the
// running task).
inline void call_handler(void (*handler)(const quanta_request*, quanta_response*), Request& request) {
  const quanta_request view{request.id, request.class_index, request.payload_len, request.payload,
                            request.frame_note};
  quanta_response response{0, 0, 0, request.response, request.response_capacity};
  handler(&view, &response);
  request.status = response.status;
  request.response_len = response.len <= request.response_capacity ? response.len : request.response_capacity;
  request.value = response.value;
}

inline void call_handler(const quanta_app& app, Request& request) { call_handler(app.handle_request, request); }

// A finished request: its times, its statistics (all requests, and those no stall in
// `stalls` touched), its sink. After this the request belongs to the sink.
inline void finish_request(Request& request, uint64_t start_tsc, uint64_t finish_tsc, uint64_t cpu_cycles,
                           uint32_t preemptions, int32_t worker, RequestRecorder& recorder, const StallWatch& stalls) {
  // A worker may start a quantum's clock at the previous quantum's stop (one clock read
  // per quantum; Worker::quantum_start), which can be before this request reached it (a
  // centralized worker's first quantum of it): its start is never before its arrival.
  request.start_tsc = start_tsc > request.arrival_tsc ? start_tsc : request.arrival_tsc;
  request.finish_tsc = finish_tsc;
  request.cpu_cycles = cpu_cycles;
  request.quanta = preemptions + 1;
  request.worker = worker;
  const bool touched = stalls.touched(request.arrival_tsc, finish_tsc);
  if (touched) request.flags |= kRequestStallTouched;
  recorder.record({request.arrival_tsc, finish_tsc, cpu_cycles, request.nominal_service_ns, request.class_index,
                   preemptions, (request.flags & kRequestMeasured) != 0, touched});
  request.sink->complete(request);
}

// The same for a request that ran in `task`: a preemption is a time the task yielded.
inline void finish_request(Request& request, const Task& task, uint64_t finish_tsc, int32_t worker,
                           RequestRecorder& recorder, const StallWatch& stalls) {
  finish_request(request, task.first_run_tsc, finish_tsc, task.attained_cycles, static_cast<uint32_t>(task.yields),
                 worker, recorder, stalls);
}

}  // namespace quanta
