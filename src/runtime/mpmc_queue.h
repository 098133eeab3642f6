// A bounded lock-free queue for many producers and many consumers (Dmitry Vyukov's design):
// each cell carries a sequence number that says whose turn it is, so a producer and a
// consumer claim a cell with one compare-and-swap on their own index and never wait on
// each other unless the queue is full or empty. Used where several user threads submit
// requests to one dispatcher. Fixed capacity, no allocation after construction.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/spsc_ring.h"

namespace quanta {

template <typename T>
class MpmcQueue {
 public:
  // Capacity is rounded up to a power of two (at least 2).
  explicit MpmcQueue(std::size_t capacity) {
    const std::size_t size = std::bit_ceil(std::max<std::size_t>(capacity, 2));
    cells_ = std::make_unique<Cell[]>(size);
    mask_ = size - 1;
    for (std::size_t i = 0; i < size; ++i) cells_[i].sequence.store(i, std::memory_order_relaxed);
  }

  bool try_push(const T& item) {
    std::size_t pos = tail_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[pos & mask_];
      const std::size_t seq = cell.sequence.load(std::memory_order_acquire);
      const auto diff = static_cast<std::ptrdiff_t>(seq) - static_cast<std::ptrdiff_t>(pos);
      if (diff == 0) {
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          cell.item = item;
          cell.sequence.store(pos + 1, std::memory_order_release);
          return true;
        }
      } else if (diff < 0) {
        return false;  // full
      } else {
        pos = tail_.load(std::memory_order_relaxed);
      }
    }
  }

  bool try_pop(T& item) {
    std::size_t pos = head_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[pos & mask_];
      const std::size_t seq = cell.sequence.load(std::memory_order_acquire);
      const auto diff = static_cast<std::ptrdiff_t>(seq) - static_cast<std::ptrdiff_t>(pos + 1);
      if (diff == 0) {
        if (head_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          item = cell.item;
          cell.sequence.store(pos + mask_ + 1, std::memory_order_release);
          return true;
        }
      } else if (diff < 0) {
        return false;  // empty
      } else {
        pos = head_.load(std::memory_order_relaxed);
      }
    }
  }

  std::size_t capacity() const { return mask_ + 1; }
  // The only consumer: whether the next cell holds nothing published (a push that has
  // claimed its cell but not yet filled it counts as not there).
  bool looks_empty() const {
    const std::size_t pos = head_.load(std::memory_order_relaxed);
    return cells_[pos & mask_].sequence.load(std::memory_order_acquire) != pos + 1;
  }
  // Exact only while no push or pop is under way (e.g. once producers are known to be
  // done, asked by the only consumer).
  bool empty_when_quiet() const {
    return tail_.load(std::memory_order_acquire) == head_.load(std::memory_order_acquire);
  }

 private:
  struct Cell {
    std::atomic<std::size_t> sequence;
    T item;
  };
  std::unique_ptr<Cell[]> cells_;
  std::size_t mask_ = 0;
  alignas(kCacheLine) std::atomic<std::size_t> tail_{0};
  alignas(kCacheLine) std::atomic<std::size_t> head_{0};
};

}  // namespace quanta
