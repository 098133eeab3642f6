// A fixed set of Request records with their payload and response buffers, and a lock-free
// free list, so a source can take a record on one thread and a worker (or a user's poll)
// can give it back on another. Everything is allocated when the pool is made; acquire and
// release are one compare-and-swap each and never allocate.
//
// The free list is a stack (the most recently released record is taken next), so a lightly
// loaded runtime keeps reusing a few records whose buffers stay in cache. Its head packs a
// record index with a tag that changes on every update, which stops the ABA problem of a
// lock-free stack: a pop that read a stale head fails its compare-and-swap.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/request.h"

namespace quanta {

class RequestPool {
 public:
  // `count` records (at least 1), each with `payload_bytes` and `response_bytes` of
  // buffer. Throws std::runtime_error naming the sizes if the buffers cannot be mapped.
  RequestPool(uint32_t count, uint32_t payload_bytes, uint32_t response_bytes);
  ~RequestPool();
  RequestPool(const RequestPool&) = delete;
  RequestPool& operator=(const RequestPool&) = delete;

  // A cleared record (buffers kept), or nullptr when every record is in use. Any thread.
  Request* acquire();
  void release(Request& request);

  // For a source that makes every request on one thread (the generator, on the
  // dispatcher's): takes all the free records at once with one atomic exchange, so that
  // it touches the free list's shared line once per batch instead of once per request,
  // while the workers that release records keep that line in their caches. Appends them
  // to `into` (reset() clears each before use); returns how many.
  uint32_t acquire_all(std::vector<Request*>& into);
  // Clears a record taken by acquire_all for a new request.
  Request& reset(Request& request);

  uint32_t capacity() const { return static_cast<uint32_t>(records_.size()); }
  uint32_t payload_bytes() const { return payload_bytes_; }
  uint32_t response_bytes() const { return response_bytes_; }
  // Records out of the pool: the capacity less what the free list holds, walked. Exact
  // only while no thread acquires or releases (tests, after a run); no counter is kept,
  // so acquire and release touch nothing but the list's head.
  uint32_t in_use() const;

 private:
  static constexpr uint32_t kEnd = UINT32_MAX;  // "no next record"

  std::vector<Request> records_;
  std::unique_ptr<std::atomic<uint32_t>[]> next_;  // free-list link of each record
  alignas(64) std::atomic<uint64_t> head_;         // (tag << 32) | index of the top record
  std::byte* buffers_ = nullptr;
  std::size_t buffer_bytes_ = 0;
  uint32_t payload_bytes_;
  uint32_t response_bytes_;
};

}  // namespace quanta
