// See json_double.h. The helpers nlohmann keeps in detail::dtoa_impl (boundaries, cached powers,
// rounding, the printf-like layout) are called as they are; grisu2, its digit loop and the
// boundaries (nlohmann/json 3.11, MIT) are restated here step for step, so a change in a new
// nlohmann shows in the test that compares both on a million doubles (tests/test_op_stream.cpp).
#include "cli/views/json_double.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace ridgeline {

namespace {

namespace dtoa = nlohmann::detail::dtoa_impl;

__extension__ using u128 = unsigned __int128;

// diyfp::mul: the upper 64 bits of the product, rounded half up.
dtoa::diyfp mul(const dtoa::diyfp& x, const dtoa::diyfp& y) {
  const u128 p = static_cast<u128>(x.f) * y.f + (u128{1} << 63);
  return {static_cast<std::uint64_t>(p >> 64), x.e + y.e + 64};
}

// grisu2_digit_gen, the same digits (see the header).
void digit_gen(char* buffer, int& length, int& decimal_exponent, dtoa::diyfp M_minus, dtoa::diyfp w,
               dtoa::diyfp M_plus) {
  std::uint64_t delta = M_plus.f - M_minus.f;
  std::uint64_t dist = M_plus.f - w.f;
  const int shift = -M_plus.e;
  const std::uint64_t one = std::uint64_t{1} << shift;
  auto p1 = static_cast<std::uint32_t>(M_plus.f >> shift);
  std::uint64_t p2 = M_plus.f & (one - 1);
  if (p2 > delta) {
    // rest = (p1 mod 10^n) * 2^-e + p2 > delta for every n: no early stop among the integral
    // digits, which are then p1's decimal digits.
    length = static_cast<int>(std::to_chars(buffer, buffer + 10, p1).ptr - buffer);
  } else {
    std::uint32_t pow10{};
    const int k = dtoa::find_largest_pow10(p1, pow10);
    int n = k;
    while (n > 0) {
      const std::uint32_t d = p1 / pow10;
      const std::uint32_t r = p1 % pow10;
      buffer[length++] = static_cast<char>('0' + d);
      p1 = r;
      n--;
      const std::uint64_t rest = (std::uint64_t{p1} << shift) + p2;
      if (rest <= delta) {
        decimal_exponent += n;
        const std::uint64_t ten_n = std::uint64_t{pow10} << shift;
        dtoa::grisu2_round(buffer, length, dist, delta, rest, ten_n);
        return;
      }
      pow10 /= 10;
    }
  }
  int m = 0;
  for (;;) {
    p2 *= 10;
    const std::uint64_t d = p2 >> shift;
    const std::uint64_t r = p2 & (one - 1);
    buffer[length++] = static_cast<char>('0' + d);
    p2 = r;
    m++;
    delta *= 10;
    dist *= 10;
    if (p2 <= delta) break;
  }
  decimal_exponent -= m;
  dtoa::grisu2_round(buffer, length, dist, delta, p2, one);
}

// diyfp::normalize, shifting by the count of leading zeros at once instead of a bit a step.
dtoa::diyfp normalize(dtoa::diyfp x) {
  const int z = __builtin_clzll(x.f);
  return {x.f << z, x.e - z};
}

// compute_boundaries for a positive finite double, with the normalize above.
dtoa::boundaries boundaries_of(double value) {
  constexpr int kPrecision = std::numeric_limits<double>::digits;
  constexpr int kBias = std::numeric_limits<double>::max_exponent - 1 + (kPrecision - 1);
  constexpr int kMinExp = 1 - kBias;
  constexpr std::uint64_t kHiddenBit = std::uint64_t{1} << (kPrecision - 1);
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const std::uint64_t E = bits >> (kPrecision - 1);
  const std::uint64_t F = bits & (kHiddenBit - 1);
  const dtoa::diyfp v =
      E == 0 ? dtoa::diyfp(F, kMinExp) : dtoa::diyfp(F + kHiddenBit, static_cast<int>(E) - kBias);
  const bool lower_boundary_is_closer = F == 0 && E > 1;
  const dtoa::diyfp m_plus(2 * v.f + 1, v.e - 1);
  const dtoa::diyfp m_minus = lower_boundary_is_closer ? dtoa::diyfp(4 * v.f - 1, v.e - 2)
                                                       : dtoa::diyfp(2 * v.f - 1, v.e - 1);
  const dtoa::diyfp w_plus = normalize(m_plus);
  const dtoa::diyfp w_minus(m_minus.f << (m_minus.e - w_plus.e), w_plus.e);
  return {normalize(v), w_minus, w_plus};
}

void grisu2(char* buf, int& len, int& decimal_exponent, double value) {
  const dtoa::boundaries b = boundaries_of(value);
  const dtoa::cached_power cached = dtoa::get_cached_power_for_binary_exponent(b.plus.e);
  const dtoa::diyfp c_minus_k(cached.f, cached.e);
  const dtoa::diyfp w = mul(b.w, c_minus_k);
  const dtoa::diyfp w_minus = mul(b.minus, c_minus_k);
  const dtoa::diyfp w_plus = mul(b.plus, c_minus_k);
  const dtoa::diyfp M_minus(w_minus.f + 1, w_minus.e);
  const dtoa::diyfp M_plus(w_plus.f - 1, w_plus.e);
  decimal_exponent = -cached.k;
  digit_gen(buf, len, decimal_exponent, M_minus, w, M_plus);
}

}  // namespace

char* json_double_to_chars(char* first, double value) {
  if (std::signbit(value)) {
    value = -value;
    *first++ = '-';
  }
  if (value == 0) {
    *first++ = '0';
    *first++ = '.';
    *first++ = '0';
    return first;
  }
  int len = 0;
  int decimal_exponent = 0;
  grisu2(first, len, decimal_exponent, value);
  return dtoa::format_buffer(first, len, decimal_exponent, -4,
                             std::numeric_limits<double>::digits10);
}

}  // namespace ridgeline
