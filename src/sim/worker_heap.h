// The pending event of each busy worker (the end of its current quantum), kept in a
// tournament tree over the workers: every internal node holds the worker with the earlier
// time of its two children, so the next event is the root, and changing one worker's time
// replays only its path to the root (log2 workers compare-and-select steps, no data-
// dependent branching to mispredict, no allocation). An idle worker's time is +infinity.
// Ties go to the lower worker index, so the event order (and the whole run) is deterministic.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace quanta {

class WorkerHeap {
 public:
  explicit WorkerHeap(uint32_t workers) {
    while (leaves_ < workers) leaves_ *= 2;
    time_.assign(leaves_, kIdle);
    node_.assign(2 * leaves_, 0);
    for (uint32_t w = 0; w < leaves_; ++w) node_[leaves_ + w] = w;
    for (uint32_t i = leaves_ - 1; i >= 1; --i) node_[i] = winner(node_[2 * i], node_[2 * i + 1]);
  }

  bool empty() const { return time_[top()] == kIdle; }
  uint32_t top() const { return node_[1]; }
  double top_time() const { return time_[node_[1]]; }
  bool contains(uint32_t w) const { return time_[w] != kIdle; }

  // Inserts `w` or moves it to its new time.
  void set(uint32_t w, double t) {
    time_[w] = t;
    replay(w);
  }
  void erase(uint32_t w) { set(w, kIdle); }

 private:
  static constexpr double kIdle = std::numeric_limits<double>::infinity();
  uint32_t winner(uint32_t left, uint32_t right) const { return time_[right] < time_[left] ? right : left; }
  void replay(uint32_t w) {
    for (uint32_t i = (leaves_ + w) >> 1; i >= 1; i >>= 1) node_[i] = winner(node_[2 * i], node_[2 * i + 1]);
  }

  uint32_t leaves_ = 1;
  std::vector<double> time_;    // per leaf; padding leaves stay idle
  std::vector<uint32_t> node_;  // node_[1] is the root; node_[leaves_ + w] == w
};

}  // namespace quanta
