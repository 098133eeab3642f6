// A bounded double-ended queue of task ids on a fixed ring: the run queue of the FIFO-like
// local policies. Capacity is fixed at construction; pushing onto a full queue is a caller
// bug (the worker never has more tasks than slots), checked by an assert.
#pragma once

#include <cassert>
#include <cstdint>
#include <optional>
#include <vector>

namespace quanta {

class TaskFifo {
 public:
  explicit TaskFifo(std::size_t capacity) : slots_(capacity ? capacity : 1) {}

  void push_back(uint32_t id) {
    assert(size_ < slots_.size());
    slots_[(head_ + size_) % slots_.size()] = id;
    ++size_;
  }
  void push_front(uint32_t id) {
    assert(size_ < slots_.size());
    head_ = (head_ + slots_.size() - 1) % slots_.size();
    slots_[head_] = id;
    ++size_;
  }
  std::optional<uint32_t> pop_front() {
    if (size_ == 0) return std::nullopt;
    const uint32_t id = slots_[head_];
    head_ = (head_ + 1) % slots_.size();
    --size_;
    return id;
  }
  std::size_t size() const { return size_; }

 private:
  std::vector<uint32_t> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace quanta
