// Key popularity for kv's generated requests: zipf(s) over N keys (Tiny Quanta's and
// YCSB's 0.99 skew), drawn in constant time and memory whatever N (up to 2^28 keys, so no
// table of N probabilities), by rejection-inversion (Hörmann and Derflinger, "Rejection-
// inversion to generate variates from monotone discrete distributions", 1996): invert the
// integral of x^-s, a continuous bound of the probabilities, and reject the few draws that
// fall outside the discrete ones. Index 0 is the most popular key, 1 the next, ...
#pragma once

#include <cstdint>

namespace kv {

class Zipf {
 public:
  // s > 0 (s = 1 handled through the limits of the helpers below), n >= 1.
  Zipf(double s, uint64_t n);
  // A key index in [0, n), from uniform draws of `next_unit()` in [0, 1).
  template <typename Unit>
  uint64_t draw(Unit next_unit) const {
    for (;;) {
      const double u = h_integral_n_ + next_unit() * (h_integral_x1_ - h_integral_n_);
      const double x = h_integral_inverse(u);
      double k = static_cast<double>(static_cast<uint64_t>(x + 0.5));
      if (k < 1) k = 1;
      if (k > n_) k = n_;
      // Accept at once inside the region the bound always covers, else test the draw
      // against the discrete probability of k.
      if (k - x <= accept_ || u >= h_integral(k + 0.5) - h(k)) return static_cast<uint64_t>(k) - 1;
    }
  }

 private:
  double h(double x) const;                   // x^-s
  double h_integral(double x) const;          // the integral of h from 1 to x
  double h_integral_inverse(double y) const;  // its inverse

  double s_;
  double n_;
  double h_integral_x1_;
  double h_integral_n_;
  double accept_;
};

}  // namespace kv
