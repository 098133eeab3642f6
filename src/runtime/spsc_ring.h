// Lock-free single-producer / single-consumer ring: the dispatcher pushes requests, one
// worker pops them. Head and tail live on their own cache lines, and each side keeps a
// private copy of the other's index so it touches the shared line only when its copy says
// the ring looks full (producer) or empty (consumer).
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace quanta {

inline constexpr std::size_t kCacheLine = 64;

template <typename T>
class SpscRing {
 public:
  // Capacity is rounded up to a power of two.
  explicit SpscRing(std::size_t capacity) {
    const std::size_t size = std::bit_ceil(std::max<std::size_t>(capacity, 1));
    slots_.resize(size);
    mask_ = size - 1;
  }

  bool try_push(const T& item) {
    const uint64_t tail = producer_.tail;
    if (tail - producer_.head_copy > mask_) {
      producer_.head_copy = head_.value.load(std::memory_order_acquire);
      if (tail - producer_.head_copy > mask_) return false;
    }
    slots_[tail & mask_] = item;
    producer_.tail = tail + 1;
    tail_.value.store(tail + 1, std::memory_order_release);
    return true;
  }

  bool try_pop(T& item) {
    const uint64_t head = consumer_.head;
    if (head == consumer_.tail_copy) {
      consumer_.tail_copy = tail_.value.load(std::memory_order_acquire);
      if (head == consumer_.tail_copy) return false;
    }
    item = slots_[head & mask_];
    consumer_.head = head + 1;
    head_.value.store(head + 1, std::memory_order_release);
    return true;
  }

  // The consumer: whether the ring holds nothing now (reads the producer's index afresh).
  bool looks_empty() const { return consumer_.head == tail_.value.load(std::memory_order_acquire); }

  std::size_t capacity() const { return mask_ + 1; }

 private:
  struct alignas(kCacheLine) SharedIndex {
    std::atomic<uint64_t> value{0};
  };
  struct alignas(kCacheLine) ProducerSide {
    uint64_t tail = 0;
    uint64_t head_copy = 0;
  };
  struct alignas(kCacheLine) ConsumerSide {
    uint64_t head = 0;
    uint64_t tail_copy = 0;
  };

  SharedIndex head_;   // written by the consumer
  SharedIndex tail_;   // written by the producer
  ProducerSide producer_;
  ConsumerSide consumer_;
  std::vector<T> slots_;
  std::size_t mask_ = 0;
};

}  // namespace quanta
