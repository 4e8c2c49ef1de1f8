//===- Philox.h - Philox4x32 written out plainly: the reference randint4x / rand / randn are checked against ---===//
#ifndef BRICK_TEST_PHILOX_H
#define BRICK_TEST_PHILOX_H

#include <array>
#include <cstdint>

namespace brick::test {

inline std::array<uint32_t, 4> philox(std::array<uint32_t, 4> c, uint32_t k0, uint32_t k1, int rounds = 10) {
  for (int round = 0; round < rounds; ++round) {
    uint64_t productA = uint64_t(0xD2511F53u) * c[0], productB = uint64_t(0xCD9E8D57u) * c[2];
    c = {uint32_t(productB >> 32) ^ c[1] ^ k0, uint32_t(productB), uint32_t(productA >> 32) ^ c[3] ^ k1,
         uint32_t(productA)};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

/// The 32 bits as rand gives them: a float in [0, 1).
inline float uniform(uint32_t bits) {
  int32_t x = int32_t(bits);
  x = x < 0 ? -(x + 1) : x; // -x - 1 without overflow
  return float(x) * 4.6566127342e-10f;
}

} // namespace brick::test

#endif // BRICK_TEST_PHILOX_H
