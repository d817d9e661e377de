// A seeded random source whose draws are the same on every platform: std::mt19937_64 is fully
// specified by the standard, but <random>'s distributions are not, so the few we need are
// written here (uniform in [0, 1), exponential, normal by Box-Muller, gamma by Marsaglia-Tsang).
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace ridgeline {

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}
  double uniform() { return (double)(engine_() >> 11) * 0x1.0p-53; }  // [0, 1)
  double exponential(double mean) { return -mean * std::log(1.0 - uniform()); }
  double normal() {
    double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  // Gamma with shape k and scale theta (mean k * theta).
  double gamma(double k, double theta) {
    if (k < 1) return gamma(k + 1, theta) * std::pow(uniform() + 1e-300, 1.0 / k);
    double d = k - 1.0 / 3, c = 1.0 / std::sqrt(9 * d);
    for (;;) {
      double x = normal(), v = 1 + c * x;
      if (v <= 0) continue;
      v = v * v * v;
      double u = uniform();
      if (std::log(u + 1e-300) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v * theta;
    }
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace ridgeline
