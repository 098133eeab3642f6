#include "kv_zipf.h"

#include <cmath>

namespace kv {
namespace {

// log(1 + t) / t, and (e^t - 1) / t: both 1 at t = 0, where the plain formulas divide 0 by
// 0 (s = 1) or lose every digit (s near 1). Series near 0.
double log1p_over(double t) { return std::fabs(t) > 1e-8 ? std::log1p(t) / t : 1 - t / 2 + t * t / 3; }
double expm1_over(double t) { return std::fabs(t) > 1e-8 ? std::expm1(t) / t : 1 + t / 2 + t * t / 6; }

}  // namespace

Zipf::Zipf(double s, uint64_t n) : s_(s), n_(static_cast<double>(n)) {
  h_integral_x1_ = h_integral(1.5) - 1;
  h_integral_n_ = h_integral(n_ + 0.5);
  accept_ = 2 - h_integral_inverse(h_integral(2.5) - h(2));
}

double Zipf::h(double x) const { return std::exp(-s_ * std::log(x)); }

double Zipf::h_integral(double x) const {
  const double log_x = std::log(x);
  return expm1_over((1 - s_) * log_x) * log_x;
}

double Zipf::h_integral_inverse(double y) const {
  double t = y * (1 - s_);
  if (t < -1) t = -1;  // rounding at the far end of the range: stay within the domain
  return std::exp(log1p_over(t) * y);
}

}  // namespace kv
