// An unbounded FIFO of request ids on a ring that doubles when full: the dispatch rings
// and central queues of the model. Growth is amortized, so steady state allocates nothing.
#pragma once

#include <cstdint>
#include <vector>

namespace quanta {

class IdQueue {
 public:
  IdQueue() : slots_(16) {}
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  void push(uint32_t id) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = id;
    ++size_;
  }
  uint32_t front() const { return slots_[head_]; }
  uint32_t pop() {
    const uint32_t id = slots_[head_];
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
    return id;
  }

 private:
  void grow() {
    std::vector<uint32_t> bigger(slots_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = slots_[(head_ + i) & (slots_.size() - 1)];
    slots_.swap(bigger);
    head_ = 0;
  }
  std::vector<uint32_t> slots_;  // power-of-two size
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace quanta
