#include "policy/dispatch_policy.h"

#include <stdexcept>

namespace quanta {
namespace {

// Join the shortest queue; among the shortest, the worker whose current jobs have been
// serviced the most quanta (Tiny Quanta's MSQ: it likely has the least work left).
// Remaining ties go to the lowest index.
class JsqMaxServicedQuanta final : public DispatchPolicy {
 public:
  uint32_t choose(std::span<const WorkerLoad> workers) override {
    uint32_t best = 0;
    for (uint32_t i = 1; i < workers.size(); ++i) {
      const WorkerLoad& w = workers[i];
      const WorkerLoad& b = workers[best];
      if (w.outstanding < b.outstanding ||
          (w.outstanding == b.outstanding && w.current_quanta > b.current_quanta)) {
        best = i;
      }
    }
    return best;
  }
  std::string_view name() const override { return "jsq-msq"; }
};

// Join the shortest queue, ties broken uniformly at random (reservoir sampling over the
// tied workers, so no allocation).
class JsqRandomTie final : public DispatchPolicy {
 public:
  explicit JsqRandomTie(uint64_t seed) : rng_(seed) {}
  uint32_t choose(std::span<const WorkerLoad> workers) override {
    uint32_t best = 0;
    uint32_t ties = 1;
    for (uint32_t i = 1; i < workers.size(); ++i) {
      if (workers[i].outstanding < workers[best].outstanding) {
        best = i;
        ties = 1;
      } else if (workers[i].outstanding == workers[best].outstanding && rng_.below(++ties) == 0) {
        best = i;
      }
    }
    return best;
  }
  std::string_view name() const override { return "jsq"; }

 private:
  Rng rng_;
};

class UniformRandom final : public DispatchPolicy {
 public:
  explicit UniformRandom(uint64_t seed) : rng_(seed) {}
  uint32_t choose(std::span<const WorkerLoad> workers) override {
    return rng_.below(static_cast<uint32_t>(workers.size()));
  }
  std::string_view name() const override { return "random"; }

 private:
  Rng rng_;
};

// Power of two choices: sample two distinct workers, join the shorter (the first on a tie).
class PowerOfTwo final : public DispatchPolicy {
 public:
  explicit PowerOfTwo(uint64_t seed) : rng_(seed) {}
  uint32_t choose(std::span<const WorkerLoad> workers) override {
    const auto n = static_cast<uint32_t>(workers.size());
    if (n == 1) return 0;
    const uint32_t a = rng_.below(n);
    uint32_t b = rng_.below(n - 1);
    if (b >= a) ++b;
    return workers[b].outstanding < workers[a].outstanding ? b : a;
  }
  std::string_view name() const override { return "po2"; }

 private:
  Rng rng_;
};

}  // namespace

const std::vector<std::string>& dispatch_policy_names() {
  static const std::vector<std::string> names{"jsq-msq", "jsq", "random", "po2"};
  return names;
}

std::unique_ptr<DispatchPolicy> make_dispatch_policy(std::string_view name, uint64_t seed) {
  if (name == "jsq-msq") return std::make_unique<JsqMaxServicedQuanta>();
  if (name == "jsq") return std::make_unique<JsqRandomTie>(seed);
  if (name == "random") return std::make_unique<UniformRandom>(seed);
  if (name == "po2") return std::make_unique<PowerOfTwo>(seed);
  throw std::invalid_argument("unknown dispatch policy '" + std::string(name) +
                              "' (expected jsq-msq, jsq, random or po2)");
}

}  // namespace quanta
