// Dispatch policies beyond "pick one worker per request": the ones that keep requests in
// the dispatcher (a central queue, JBSQ(K)) or let idle workers take work (steal). Pure
// decision code like dispatch_policy.h: the caller owns the queues and passes a snapshot
// of the workers' state; no threads, no clocks, no allocation.
//
// The runtime carries them out in src/runtime/central_dispatcher.*, the simulator in
// src/sim/engine.cc; dispatch_policy_names() lists only the per-request ones.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "policy/dispatch_policy.h"
#include "policy/rng.h"

namespace quanta {

// How a dispatch policy name is carried out.
struct DispatchSpec {
  enum class Kind {
    kPerRequest,  // a DispatchPolicy picks a worker for each request (jsq-msq, jsq, random, po2)
    kCentral,     // one queue for all workers; an idle worker takes the head (centralized PS/FCFS)
    kJbsq,        // central queue feeding per-worker queues bounded at `depth` (Concord's JBSQ(K))
    kSteal,       // random placement; an idle worker steals from the worker with most waiting
  };
  Kind kind = Kind::kPerRequest;
  std::string name;     // as given ("jbsq:2")
  uint32_t depth = 0;   // JBSQ's bound on a worker's outstanding requests (running included)
};

// Throws std::invalid_argument naming `name` if it is not one of sim_dispatch_policy_names()
// (with jbsq:K for any K from 1 to 1024).
DispatchSpec parse_dispatch_spec(std::string_view name);
// Every dispatch policy the simulator runs: dispatch_policy_names() then central, jbsq:K, steal.
const std::vector<std::string>& sim_dispatch_policy_names();

// JBSQ(K): join the worker with the fewest outstanding requests among those below K
// (lowest index on a tie); nullopt when every worker is full and the request must wait in
// the central queue. Lowest-index ties make JBSQ(1) the same schedule as a central FCFS
// queue whose idle workers are taken lowest index first (a test checks it).
class JbsqPolicy {
 public:
  explicit JbsqPolicy(uint32_t depth) : depth_(depth) {}
  std::optional<uint32_t> choose(std::span<const WorkerLoad> workers) const {
    std::optional<uint32_t> best;
    for (uint32_t i = 0; i < workers.size(); ++i) {
      if (workers[i].outstanding >= depth_) continue;
      if (!best || workers[i].outstanding < workers[*best].outstanding) best = i;
    }
    return best;
  }
  uint32_t depth() const { return depth_; }

 private:
  uint32_t depth_;
};

// Work stealing: which worker an idle `thief` takes a waiting (not running) request from.
// The victim is the worker with the most waiting requests (lowest index on a tie), or, with
// `random_victim`, a uniformly random worker among those with any waiting (ZygOS-like).
class StealPolicy {
 public:
  explicit StealPolicy(uint64_t seed, bool random_victim = false) : rng_(seed), random_victim_(random_victim) {}
  std::optional<uint32_t> victim(std::span<const uint32_t> waiting, uint32_t thief) {
    std::optional<uint32_t> best;
    uint32_t candidates = 0;
    for (uint32_t i = 0; i < waiting.size(); ++i) {
      if (i == thief || waiting[i] == 0) continue;
      if (random_victim_) {
        if (rng_.below(++candidates) == 0) best = i;  // reservoir sampling: no allocation
      } else if (!best || waiting[i] > waiting[*best]) {
        best = i;
      }
    }
    return best;
  }

 private:
  Rng rng_;
  bool random_victim_;
};

}  // namespace quanta
