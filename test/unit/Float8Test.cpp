//===- Float8Test.cpp - e4m3fn and e5m2 conversions against the formats' definitions -----------===//

#include "brick/Support/Float8.h"
#include "brick/Support/HalfFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace brick;

namespace {

/// The code nearest `value` by search over every finite code (ties to the even code), saturating: the
/// definition the encoder must meet, without its arithmetic.
uint8_t nearestBySearch(const float8::Format &format, double value) {
  if (std::isnan(value))
    return 0x7f;
  const uint8_t sign = std::signbit(value) ? 0x80 : 0;
  const double magnitude = std::fabs(value);
  uint8_t best = 0;
  for (uint8_t code = 1; code <= format.largest; ++code) {
    double distance = std::fabs(float8::decode(format, code) - magnitude),
           bestDistance = std::fabs(float8::decode(format, best) - magnitude);
    if (distance < bestDistance || (distance == bestDistance && (code & 1) == 0))
      best = code;
  }
  return sign | best;
}

} // namespace

TEST(Float8, CodesDecodeAsTheFormatsDefineThem) {
  EXPECT_EQ(e4m3ToFloat(0x00), 0.0f);
  EXPECT_TRUE(std::signbit(e4m3ToFloat(0x80)));
  EXPECT_EQ(e4m3ToFloat(0x01), std::ldexp(1.0f, -9)); // the smallest subnormal
  EXPECT_EQ(e4m3ToFloat(0x07), std::ldexp(7.0f, -9));
  EXPECT_EQ(e4m3ToFloat(0x08), std::ldexp(1.0f, -6)); // the smallest normal
  EXPECT_EQ(e4m3ToFloat(0x38), 1.0f);
  EXPECT_EQ(e4m3ToFloat(0x7e), 448.0f);
  EXPECT_EQ(e4m3ToFloat(0xfe), -448.0f);
  EXPECT_TRUE(std::isnan(e4m3ToFloat(0x7f)));
  EXPECT_TRUE(std::isnan(e4m3ToFloat(0xff)));
  EXPECT_EQ(e4m3ToFloat(0x78), 256.0f); // exponent 15 holds numbers (no infinity)
  EXPECT_EQ(e5m2ToFloat(0x3c), 1.0f);
  EXPECT_EQ(e5m2ToFloat(0x7b), 57344.0f);
  EXPECT_EQ(e5m2ToFloat(0x01), std::ldexp(1.0f, -16));
  EXPECT_EQ(e5m2ToFloat(0x7c), INFINITY);
  EXPECT_EQ(e5m2ToFloat(0xfc), -INFINITY);
  // e5m2 is binary16's upper byte, code for code.
  for (int code = 0; code < 256; ++code) {
    float half = halfToFloat(uint16_t(code << 8)), value = e5m2ToFloat(uint8_t(code));
    if (std::isnan(half))
      EXPECT_TRUE(std::isnan(value)) << code;
    else
      EXPECT_EQ(value, half) << code;
  }
}

TEST(Float8, EveryNumberCodeRoundTripsAndMidpointsGoToTheEvenCode) {
  for (const float8::Format *format : {&float8::e4m3fn, &float8::e5m2}) {
    for (int code = 0; code < 256; ++code) {
      double value = float8::decode(*format, uint8_t(code));
      if (std::isnan(value) || std::isinf(value))
        continue;
      EXPECT_EQ(float8::encode(*format, value), code) << code;
      uint8_t next = uint8_t(code + 1);
      if ((code & 0x7f) < format->largest) {
        double midpoint = (value + float8::decode(*format, next)) / 2;
        EXPECT_EQ(float8::encode(*format, midpoint), (code & 1) ? next : uint8_t(code)) << code;
      }
    }
  }
}

TEST(Float8, OutOfRangeSaturatesAndNaNIsTheCanonicalCode) {
  EXPECT_EQ(floatToE4M3(449.0f), 0x7e);
  EXPECT_EQ(floatToE4M3(1e30f), 0x7e);
  EXPECT_EQ(floatToE4M3(INFINITY), 0x7e);
  EXPECT_EQ(floatToE4M3(-INFINITY), 0xfe);
  EXPECT_EQ(floatToE5M2(INFINITY), 0x7b);
  EXPECT_EQ(floatToE5M2(-70000.0f), 0xfb);
  EXPECT_EQ(floatToE4M3(NAN), 0x7f);
  EXPECT_EQ(floatToE5M2(NAN), 0x7f);
  EXPECT_EQ(floatToE4M3(std::ldexp(1.0f, -11)), 0x00); // a quarter of the smallest subnormal
  EXPECT_EQ(floatToE4M3(-std::ldexp(1.0f, -11)), 0x80);
  EXPECT_EQ(floatToE4M3(std::ldexp(3.0f, -11)), 0x01); // three quarters of it
}

TEST(Float8, RandomFloatsEncodeToTheNearestCode) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> exponent(-20, 18), mantissa(1, 2);
  for (int i = 0; i < 200000; ++i) {
    double value = std::ldexp(mantissa(rng), int(exponent(rng))) * (rng() & 1 ? -1 : 1);
    float single = float(value);
    ASSERT_EQ(floatToE4M3(single), nearestBySearch(float8::e4m3fn, single)) << single;
    ASSERT_EQ(floatToE5M2(single), nearestBySearch(float8::e5m2, single)) << single;
  }
}
