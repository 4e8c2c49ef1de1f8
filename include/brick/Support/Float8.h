//===- Float8.h - e4m3fn and e5m2 <-> float, rounding to nearest even and saturating --------===//
//
// Hopper's 8-bit floats, as cvt.rn.satfinite converts to them and cvt converts from them:
//
//   e4m3fn  1 sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinity; NaN is S.1111.111; largest 448
//   e5m2    1 sign, 5 exponent bits (bias 15), 2 mantissa bits; infinities and NaNs as binary16's (it is
//           binary16's upper byte); largest finite 57344
//
// A float becomes the nearest code (ties to even); a magnitude at or past the largest finite value, infinity
// included, becomes the largest finite value of its sign (satfinite); NaN becomes 0x7f. Every code converts to a
// float exactly. Header-only and dependency-free: the interpreter, the tests and host programs share it.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_SUPPORT_FLOAT8_H
#define BRICK_SUPPORT_FLOAT8_H

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace brick {
namespace float8 {

/// One 8-bit float format: `mantissa` bits, exponent `bias`, the largest finite code's magnitude bits.
struct Format {
  int mantissa, bias;
  uint8_t largest;   // 0x7e for e4m3fn (448), 0x7b for e5m2 (57344)
  bool infinities;   // e5m2's exponent 31 is infinity or NaN; e4m3fn's exponent 15 holds numbers but S.1111.111
};
inline constexpr Format e4m3fn{3, 7, 0x7e, false};
inline constexpr Format e5m2{2, 15, 0x7b, true};

inline double decode(const Format &format, uint8_t code) {
  const bool negative = code & 0x80;
  const int exponentField = (code & 0x7f) >> format.mantissa, mantissaField = code & ((1 << format.mantissa) - 1);
  const int topExponent = (1 << (7 - format.mantissa)) - 1;
  double magnitude;
  if (format.infinities && exponentField == topExponent)
    magnitude = mantissaField ? NAN : INFINITY;
  else if (!format.infinities && (code & 0x7f) == 0x7f)
    magnitude = NAN;
  else if (exponentField == 0) // subnormal: mantissa x 2^(1 - bias - m)
    magnitude = std::ldexp(double(mantissaField), 1 - format.bias - format.mantissa);
  else
    magnitude = std::ldexp(double(mantissaField + (1 << format.mantissa)), exponentField - format.bias - format.mantissa);
  return negative ? -magnitude : magnitude;
}

inline uint8_t encode(const Format &format, double value) {
  if (std::isnan(value))
    return 0x7f;
  const uint8_t sign = std::signbit(value) ? 0x80 : 0;
  const double magnitude = std::fabs(value), largest = decode(format, format.largest);
  if (magnitude >= largest)
    return sign | format.largest;
  // The spacing of codes around `magnitude` (that of the subnormals below the smallest normal): dividing by it
  // is exact, and rounding the quotient to an even integer rounds to the nearest code, ties to even.
  int exponent;
  std::frexp(magnitude, &exponent); // magnitude = f x 2^exponent, f in [0.5, 1)
  const int quantum = std::max(exponent - 1, 1 - format.bias) - format.mantissa;
  const double steps = std::nearbyint(std::ldexp(magnitude, -quantum)); // ties to even (the default mode)
  const double rounded = std::ldexp(steps, quantum);
  if (rounded == 0)
    return sign;
  std::frexp(rounded, &exponent);
  const int biased = exponent - 1 + format.bias;
  if (biased <= 0) // subnormal
    return sign | uint8_t(std::ldexp(rounded, format.bias - 1 + format.mantissa));
  const int mantissaField = int(std::ldexp(rounded, format.mantissa - exponent + 1)) - (1 << format.mantissa);
  return sign | uint8_t((biased << format.mantissa) | mantissaField);
}

} // namespace float8

inline uint8_t floatToE4M3(float f) { return float8::encode(float8::e4m3fn, f); }
inline float e4m3ToFloat(uint8_t code) { return float(float8::decode(float8::e4m3fn, code)); }
inline uint8_t floatToE5M2(float f) { return float8::encode(float8::e5m2, f); }
inline float e5m2ToFloat(uint8_t code) { return float(float8::decode(float8::e5m2, code)); }

} // namespace brick

#endif // BRICK_SUPPORT_FLOAT8_H
