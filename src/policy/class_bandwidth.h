// Scheduling classes on one worker: latency-critical (LC) and best-effort (BE) request
// classes with a priority and, optionally, a Microquanta-style bandwidth: `runtime` units of
// CPU in every `period` (periods are aligned to multiples of `period` from time 0).
//
// Who runs next, among the classes with work waiting, in this order of tiers:
//   0. a class with a bandwidth that has budget left in this period (the bandwidth is a
//      guarantee: a BE class gets its runtime per period even while LC work waits, and it
//      is stopped at its next probe once the budget is spent: allowance());
//   1. an LC class without a bandwidth;
//   2. a BE class without a bandwidth (it runs only while no LC work waits);
//   3. a class whose budget is spent, unless capped: it uses a CPU nothing else wants
//      (work-conserving). A capped class waits for its next period.
// Within a tier the higher priority wins, then the lower class index.
// Pure decision code in caller's units (cycles in the runtime, ns in the simulator): no
// clocks, no threads, no allocation after construction.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace quanta {

struct ClassParams {
  bool latency_critical = true;
  int priority = 0;          // higher runs first within a tier
  uint64_t runtime = 0;      // budget per period; 0: no bandwidth
  uint64_t period = 0;       // needed with a runtime
  bool capped = false;       // with a bandwidth: never run past the budget, even on an idle CPU
};

class ClassBandwidth {
 public:
  static constexpr uint64_t kUnlimited = UINT64_MAX;

  // Throws std::invalid_argument naming the class for a runtime without a period or a
  // runtime longer than its period.
  explicit ClassBandwidth(std::vector<ClassParams> classes);

  // The class to run next at `now`, given which classes have work waiting (one flag per
  // class); nullopt when none may run (nothing waits, or only capped classes out of budget).
  std::optional<uint32_t> pick(uint64_t now, std::span<const bool> waiting);

  // How long class `c` may run from `now` before it must stop: what is left of its budget
  // while it runs on it (tier 0), else kUnlimited (the quantum decides).
  uint64_t allowance(uint32_t c, uint64_t now);

  // Class `c` ran `ran` units, ending at `now`.
  void charge(uint32_t c, uint64_t ran, uint64_t now);

  // Budget used by class `c` in the period that holds `now`.
  uint64_t used(uint32_t c, uint64_t now);

  std::size_t size() const { return classes_.size(); }

 private:
  struct State {
    uint64_t period_index = 0;  // which period `used` counts
    uint64_t used = 0;
  };
  // 0..3 as above, or -1 when the class may not run now.
  int tier(uint32_t c, uint64_t now);
  void roll(uint32_t c, uint64_t now);
  bool has_budget_left(uint32_t c, uint64_t now);

  std::vector<ClassParams> classes_;
  std::vector<State> state_;
};

}  // namespace quanta
