#include "policy/class_bandwidth.h"

#include <stdexcept>
#include <string>

namespace quanta {

ClassBandwidth::ClassBandwidth(std::vector<ClassParams> classes)
    : classes_(std::move(classes)), state_(classes_.size()) {
  for (std::size_t i = 0; i < classes_.size(); ++i) {
    const ClassParams& p = classes_[i];
    if (p.runtime > 0 && p.period == 0) {
      throw std::invalid_argument("class " + std::to_string(i) + ": a runtime needs a period");
    }
    if (p.runtime > p.period && p.period > 0) {
      throw std::invalid_argument("class " + std::to_string(i) + ": runtime " + std::to_string(p.runtime) +
                                  " is longer than its period " + std::to_string(p.period));
    }
    if (p.capped && p.runtime == 0) {
      throw std::invalid_argument("class " + std::to_string(i) + ": a cap needs a runtime and a period");
    }
  }
}

void ClassBandwidth::roll(uint32_t c, uint64_t now) {
  const ClassParams& p = classes_[c];
  if (p.period == 0) return;
  const uint64_t index = now / p.period;
  if (index != state_[c].period_index) {
    state_[c].period_index = index;
    state_[c].used = 0;
  }
}

bool ClassBandwidth::has_budget_left(uint32_t c, uint64_t now) {
  roll(c, now);
  return state_[c].used < classes_[c].runtime;
}

int ClassBandwidth::tier(uint32_t c, uint64_t now) {
  const ClassParams& p = classes_[c];
  if (p.runtime == 0) return p.latency_critical ? 1 : 2;
  if (has_budget_left(c, now)) return 0;
  return p.capped ? -1 : 3;
}

std::optional<uint32_t> ClassBandwidth::pick(uint64_t now, std::span<const bool> waiting) {
  std::optional<uint32_t> best;
  int best_tier = 0;
  for (uint32_t c = 0; c < classes_.size() && c < waiting.size(); ++c) {
    if (!waiting[c]) continue;
    const int t = tier(c, now);
    if (t < 0) continue;
    if (!best || t < best_tier || (t == best_tier && classes_[c].priority > classes_[*best].priority)) {
      best = c;
      best_tier = t;
    }
  }
  return best;
}

uint64_t ClassBandwidth::allowance(uint32_t c, uint64_t now) {
  const ClassParams& p = classes_[c];
  if (p.runtime == 0 || !has_budget_left(c, now)) return kUnlimited;
  const uint64_t left = p.runtime - state_[c].used;
  // The budget is this period's: a run that reaches the period's end goes on with the
  // next period's budget, which pick() grants afresh.
  const uint64_t to_period_end = (state_[c].period_index + 1) * p.period - now;
  return left < to_period_end ? left : to_period_end;
}

void ClassBandwidth::charge(uint32_t c, uint64_t ran, uint64_t now) {
  roll(c, now);
  state_[c].used += ran;
}

uint64_t ClassBandwidth::used(uint32_t c, uint64_t now) {
  roll(c, now);
  return state_[c].used;
}

}  // namespace quanta
