//===- Random.cpp - Counter-based random numbers: Philox4x32 over (seed, offset) -----------------===//
//
// Philox4x32 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) with the counter (offset lo,
// offset hi, 0, 0) and the key (seed lo, seed hi), as Triton's tl.randint4x: the same seed and offsets give the
// same numbers in every program, on the GPU and on the interpreter, bit for bit (integers only). Built from the
// DSL's own integer ops; the 32 x 32 -> 64-bit products become mul.hi.u32 / mul.lo.u32 in PTX.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "brick/DSL/Ops.h"

namespace brick {

namespace {

constexpr uint32_t kRoundA = 0xD2511F53u, kRoundB = 0xCD9E8D57u; // the multipliers
constexpr uint32_t kKeyA = 0x9E3779B9u, kKeyB = 0xBB67AE85u;      // the Weyl sequence that bumps the key

Operand literal32(uint32_t bits, Loc loc) { return Operand(static_cast<int32_t>(bits), loc); }

/// The high 32 bits of the unsigned product of `constant` and the i32 block `x` (mul.hi.u32).
Tensor mulHigh(uint32_t constant, const Tensor &x, Loc loc) {
  Tensor unsignedX = Operand(x.to<i64>(loc), loc) & Operand(int64_t(0xFFFFFFFF), loc);
  Tensor product = Operand(unsignedX, loc) * Operand(int64_t(constant), loc);
  return (Operand(product, loc) >> Operand(32, loc)).to<i32>(loc);
}

/// An integer scalar (or literal) as the two i32 halves of its 64-bit value.
bool seedHalves(const Operand &seed, Tensor &lo, Tensor &hi, Loc loc) {
  if (detail::Access::isLiteral(seed)) {
    if (detail::Access::isFloatLiteral(seed) || detail::Access::isBoolLiteral(seed)) {
      if (KernelBuilder *kb = KernelBuilder::current("randint", loc))
        kb->error(loc, "a random seed is an integer, not a floating-point or boolean value");
      return false;
    }
    uint64_t bits = static_cast<uint64_t>(detail::Access::intLiteral(seed));
    lo = full({}, double(static_cast<int32_t>(uint32_t(bits))), DType::I32, loc);
    hi = full({}, double(static_cast<int32_t>(uint32_t(bits >> 32))), DType::I32, loc);
    return true;
  }
  const Tensor &value = detail::Access::handle(seed);
  if (!value.isSet() || !value.isScalar(loc) || value.isPointer() || !isInteger(value.dtype()) ||
      value.dtype() == DType::I1) {
    if (KernelBuilder *kb = KernelBuilder::current("randint", loc))
      kb->error(loc, "a random seed is an integer scalar (Int, Long or a literal)");
    return false;
  }
  Tensor wide = value.to<i64>(loc);
  lo = wide.to<i32>(loc);
  hi = (Operand(wide, loc) >> Operand(32, loc)).to<i32>(loc);
  return true;
}

/// The 32 random bits as a float in [0, 1): non-negative bits scaled by 2^-31, negative ones mirrored first.
Tensor uniform(const Tensor &bits, Loc loc) {
  Tensor magnitude = where(Operand(bits, loc) < Operand(0, loc), Operand(-Operand(bits, loc), loc) - Operand(1, loc),
                           bits, loc);
  return Operand(magnitude.to<f32>(loc), loc) * Operand(4.6566127342e-10f, loc);
}

} // namespace

std::array<Tensor, 4> randint4x(const Operand &seed, const Tensor &offsets, int rounds, Loc loc) {
  KernelBuilder *kb = KernelBuilder::current("randint4x", loc);
  if (!kb)
    return {};
  if (rounds < 1 || rounds > 64) {
    kb->error(loc, "Philox takes 1 to 64 rounds (10 is the standard), got " + std::to_string(rounds));
    return {};
  }
  if (!offsets.isSet() || offsets.isPointer() || (offsets.dtype() != DType::I32 && offsets.dtype() != DType::I64)) {
    kb->error(loc, "random offsets are an i32 or i64 block (or scalar), e.g. program_id(0) * BLOCK + arange(0, BLOCK)");
    return {};
  }
  Tensor k0, k1;
  if (!seedHalves(seed, k0, k1, loc))
    return {};
  Tensor zero = zeros(offsets.shape(loc), DType::I32, loc);
  Tensor c0 = offsets.to<i32>(loc), c2 = zero, c3 = zero;
  Tensor c1 = offsets.dtype() == DType::I64 ? (Operand(offsets, loc) >> Operand(32, loc)).to<i32>(loc) : zero;
  for (int round = 0; round < rounds; ++round) {
    Tensor next0 = Operand(Operand(mulHigh(kRoundB, c2, loc), loc) ^ Operand(c1, loc), loc) ^ Operand(k0, loc);
    Tensor next2 = Operand(Operand(mulHigh(kRoundA, c0, loc), loc) ^ Operand(c3, loc), loc) ^ Operand(k1, loc);
    Tensor next1 = Operand(c2, loc) * literal32(kRoundB, loc);
    Tensor next3 = Operand(c0, loc) * literal32(kRoundA, loc);
    c0 = next0, c1 = next1, c2 = next2, c3 = next3;
    if (round + 1 < rounds) {
      k0 = Operand(k0, loc) + literal32(kKeyA, loc);
      k1 = Operand(k1, loc) + literal32(kKeyB, loc);
    }
  }
  return {c0, c1, c2, c3};
}

Tensor randint(const Operand &seed, const Tensor &offsets, int rounds, Loc loc) {
  return randint4x(seed, offsets, rounds, loc)[0];
}

Tensor rand(const Operand &seed, const Tensor &offsets, int rounds, Loc loc) {
  Tensor bits = randint(seed, offsets, rounds, loc);
  return bits.isSet() ? uniform(bits, loc) : Tensor();
}

Tensor randn(const Operand &seed, const Tensor &offsets, int rounds, Loc loc) {
  std::array<Tensor, 4> bits = randint4x(seed, offsets, rounds, loc);
  if (!bits[0].isSet())
    return Tensor();
  // Box-Muller on two uniforms; u1 kept away from 0, where log diverges.
  Tensor u1 = maximum(uniform(bits[0], loc), Operand(1.0e-7f, loc), loc);
  Tensor u2 = uniform(bits[1], loc);
  Tensor radius = sqrt(Operand(-2.0f, loc) * Operand(log(u1, loc), loc), loc);
  return Operand(radius, loc) * Operand(cos(Operand(u2, loc) * Operand(6.283185307179586f, loc), loc), loc);
}

} // namespace brick
