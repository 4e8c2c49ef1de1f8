//===- HalfFloat.h - binary16 and bfloat16 <-> float, rounding to nearest even ------===//
//
// Header-only and dependency-free: the interpreter, the runtime's users, the examples' host programs, the tests
// and the benchmark all convert the same way the GPU's cvt.rn does.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_SUPPORT_HALFFLOAT_H
#define BRICK_SUPPORT_HALFFLOAT_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace brick {

inline uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  if ((x & 0x7fffffff) > 0x7f800000) // NaN: keep it quiet and a NaN
    return sign | 0x7e00 | ((x >> 13) & 0x3ff);
  int exponent = int((x >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = x & 0x7fffff;
  if (exponent <= 0) { // subnormal or zero in binary16
    if (exponent < -10)
      return sign;
    mantissa |= 0x800000;
    uint32_t shift = 14 - exponent;
    uint32_t half = mantissa >> shift, rest = mantissa & ((1u << shift) - 1), midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1)))
      ++half;
    return sign | half;
  }
  if (exponent >= 31)
    return sign | 0x7c00;
  uint32_t half = (uint32_t(exponent) << 10) | (mantissa >> 13), rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, up to infinity: that is the correct rounding
  return sign | half;
}

inline float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff, x;
  if (exponent == 0) {
    float value = std::ldexp(float(mantissa), -24);
    return sign ? -value : value;
  }
  x = exponent == 31 ? sign | 0x7f800000 | (mantissa << 13) : sign | ((exponent + 112) << 23) | (mantissa << 13);
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

inline uint16_t floatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000)
    return uint16_t((x >> 16) | 0x40); // NaN stays NaN
  x += 0x7fff + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}

inline float bf16ToFloat(uint16_t b) {
  uint32_t x = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

} // namespace brick

#endif // BRICK_SUPPORT_HALFFLOAT_H
