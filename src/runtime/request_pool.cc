#include "runtime/request_pool.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace quanta {
namespace {

uint64_t pack(uint32_t tag, uint32_t index) { return (static_cast<uint64_t>(tag) << 32) | index; }
uint32_t index_of(uint64_t head) { return static_cast<uint32_t>(head); }
uint32_t tag_of(uint64_t head) { return static_cast<uint32_t>(head >> 32); }

}  // namespace

RequestPool::RequestPool(uint32_t count, uint32_t payload_bytes, uint32_t response_bytes)
    : records_(count ? count : 1),
      next_(new std::atomic<uint32_t>[count ? count : 1]),
      payload_bytes_(payload_bytes),
      response_bytes_(response_bytes) {
  const std::size_t per_record = static_cast<std::size_t>(payload_bytes) + response_bytes;
  buffer_bytes_ = per_record * records_.size();
  if (buffer_bytes_ > 0) {
    // MAP_NORESERVE: only the pages that requests really touch cost memory.
    void* mem = mmap(nullptr, buffer_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
      throw std::runtime_error("cannot map buffers for " + std::to_string(records_.size()) + " requests of " +
                               std::to_string(payload_bytes) + " + " + std::to_string(response_bytes) +
                               " bytes: " + std::strerror(errno));
    }
    buffers_ = static_cast<std::byte*>(mem);
  }
  const auto n = static_cast<uint32_t>(records_.size());
  for (uint32_t i = 0; i < n; ++i) {
    Request& r = records_[i];
    r.pool_index = i;
    r.payload = buffers_ ? buffers_ + per_record * i : nullptr;
    r.response = buffers_ ? buffers_ + per_record * i + payload_bytes : nullptr;
    r.payload_capacity = payload_bytes;
    r.response_capacity = response_bytes;
    next_[i].store(i + 1 < n ? i + 1 : kEnd, std::memory_order_relaxed);
  }
  head_.store(pack(0, 0), std::memory_order_release);
}

RequestPool::~RequestPool() {
  if (buffers_ != nullptr) munmap(buffers_, buffer_bytes_);
}

Request* RequestPool::acquire() {
  uint64_t head = head_.load(std::memory_order_acquire);
  for (;;) {
    const uint32_t top = index_of(head);
    if (top == kEnd) return nullptr;
    // `next_[top]` may be stale if another thread took `top` meanwhile; then the tag moved
    // and the exchange below fails.
    const uint32_t below = next_[top].load(std::memory_order_relaxed);
    if (head_.compare_exchange_weak(head, pack(tag_of(head) + 1, below), std::memory_order_acquire,
                                    std::memory_order_acquire)) {
      return &reset(records_[top]);
    }
  }
}

Request& RequestPool::reset(Request& r) {
  // Keep the buffers and the index; clear what a source or the runtime fills in.
  std::byte* payload = r.payload;
  std::byte* response = r.response;
  const uint32_t index = r.pool_index;
  r = Request{};
  r.payload = payload;
  r.response = response;
  r.payload_capacity = payload_bytes_;
  r.response_capacity = response_bytes_;
  r.pool_index = index;
  return r;
}

uint32_t RequestPool::acquire_all(std::vector<Request*>& into) {
  uint64_t head = head_.load(std::memory_order_acquire);
  // Detach the whole stack: a concurrent acquire that read the old head fails its
  // compare-and-swap on the tag, and releases push onto the new, empty head.
  while (!head_.compare_exchange_weak(head, pack(tag_of(head) + 1, kEnd), std::memory_order_acquire,
                                      std::memory_order_acquire)) {
  }
  uint32_t n = 0;
  for (uint32_t at = index_of(head); at != kEnd; at = next_[at].load(std::memory_order_relaxed)) {
    into.push_back(&records_[at]);
    ++n;
  }
  return n;
}

uint32_t RequestPool::in_use() const {
  uint32_t free = 0;
  for (uint32_t at = index_of(head_.load(std::memory_order_acquire)); at != kEnd;
       at = next_[at].load(std::memory_order_relaxed)) {
    ++free;
  }
  return capacity() - free;
}

void RequestPool::release(Request& request) {
  const uint32_t index = request.pool_index;
  uint64_t head = head_.load(std::memory_order_relaxed);
  for (;;) {
    next_[index].store(index_of(head), std::memory_order_relaxed);
    // Release: the record's contents are visible to whoever acquires it next.
    if (head_.compare_exchange_weak(head, pack(tag_of(head) + 1, index), std::memory_order_release,
                                    std::memory_order_relaxed)) {
      return;
    }
  }
}

}  // namespace quanta
