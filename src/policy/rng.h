// Small, seedable, allocation-free random numbers for policies and generators, so a run
// and its simulation are reproducible from one seed. xoshiro256** seeded by splitmix64.
#pragma once

#include <cstdint>

namespace quanta {

class Rng {
 public:
  explicit Rng(uint64_t seed = 1) { reseed(seed); }

  void reseed(uint64_t seed) {
    for (auto& word : state_) word = splitmix64(seed);
  }

  uint64_t next() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, bound), bound > 0 (Lemire's multiply-shift; the bias is below 2^-32
  // for the bounds used here: worker counts).
  uint32_t below(uint32_t bound) {
    return static_cast<uint32_t>(((next() >> 32) * static_cast<uint64_t>(bound)) >> 32);
  }

  // Uniform in (0, 1]: never 0, so -log(u) is finite.
  double unit_open_zero() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t state_[4];
};

}  // namespace quanta
