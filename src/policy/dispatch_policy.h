// Dispatch policies: which worker a newly arrived request joins. Pure decision code over
// a snapshot of per-worker load; the runtime fills the snapshot from the workers' counter
// cache lines, the simulator from its model. Randomness comes from a seeded Rng owned by
// the policy, so decisions are reproducible.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "policy/rng.h"

namespace quanta {

struct WorkerLoad {
  uint32_t outstanding = 0;        // assigned and not yet finished (queued + running)
  uint64_t current_quanta = 0;     // quanta serviced so far by the worker's unfinished jobs
};

class DispatchPolicy {
 public:
  virtual ~DispatchPolicy() = default;
  // Index into `workers` (never empty) of the worker that gets the request.
  virtual uint32_t choose(std::span<const WorkerLoad> workers) = 0;
  virtual std::string_view name() const = 0;
};

// Throws std::invalid_argument naming the policy if `name` is not one of
// dispatch_policy_names().
std::unique_ptr<DispatchPolicy> make_dispatch_policy(std::string_view name, uint64_t seed);
const std::vector<std::string>& dispatch_policy_names();

}  // namespace quanta
