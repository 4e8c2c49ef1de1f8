//===- DSLDiagnosticsTest.cpp - Misuses are errors at the user's file and line -===//
//
// Each test writes one mistake on a known line and checks that the build fails with exactly one diagnostic,
// at this file and that line, whose message says what is wrong.
//
//===----------------------------------------------------------------------===//

#include "DSLTestUtils.h"

#include <gmock/gmock.h>

using namespace brick;
using ::testing::HasSubstr;

namespace {

/// Expects the build to fail with one diagnostic at (this file, `line`) containing `message`. `line` is a
/// reference: the kernel body, which sets it, runs inside the build that makes `result`.
void expectError(const BuildResult &result, const int &line, const std::string &message) {
  ASSERT_FALSE(result.ok()) << "the kernel built without errors";
  ASSERT_EQ(result.diagnostics().size(), 1u) << result.errors();
  const Diagnostic &diagnostic = result.diagnostics().front();
  EXPECT_EQ(diagnostic.file, __FILE__);
  EXPECT_EQ(diagnostic.line, static_cast<unsigned>(line)) << diagnostic.str();
  EXPECT_THAT(diagnostic.message, HasSubstr(message));
  EXPECT_THAT(diagnostic.str(), HasSubstr(std::string(__FILE__) + ":" + std::to_string(line) + ":"));
}

TEST(Diagnostics, ShapesThatDoNotBroadcast) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p) {
    Tensor a = arange(0, 64), b = arange(0, 128);
    line = __LINE__ + 1;
    store(p + a, a + b);
  });
  expectError(k.build(), line, "+: shapes [64] and [128] do not broadcast");
}

TEST(Diagnostics, ReduceCombinerThatStores) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p) {
    Tensor x = load(p + arange(0, 64));
    line = __LINE__ + 1;
    Tensor total = reduce(x, 0, [&](Tensor a, Tensor b) {
      store(p, a);
      return a + b;
    });
    store(p, total);
  });
  expectError(k.build(), line, "combiner must not write memory");
}

TEST(Diagnostics, TranscendentalOfF64) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f64> p) {
    Tensor x = load(p + arange(0, 64));
    line = __LINE__ + 1;
    store(p + arange(0, 64), sin(x));
  });
  expectError(k.build(), line, "sin of f64 has no GPU implementation here; compute it in f32");
}

// fma takes floats (integers convert): pointers are one error at the user's line (they crashed the promotion),
// and so are integers alone; an unset handle is one error, not one per use.
TEST(Diagnostics, FmaOfPointersOrIntegers) {
  int line = 0;
  auto pointers = kernel("k", [&](Ptr<f32> p) {
    Tensor offsets = arange(0, 16);
    line = __LINE__ + 1;
    store(p + offsets, fma(p + offsets, 1, 2));
  });
  expectError(pointers.build(), line, "fma needs 16-, 32- or 64-bit floats");
  auto integers = kernel("k", [&](Ptr<f32> p) {
    Tensor offsets = arange(0, 16);
    line = __LINE__ + 1;
    store(p + offsets, fma(offsets, offsets, 1));
  });
  expectError(integers.build(), line, "fma needs 16-, 32- or 64-bit floats");
  auto unset = kernel("k", [&](Ptr<f32> p) {
    Tensor nothing;
    line = __LINE__ + 1;
    store(p + arange(0, 16), fma(nothing, 2.0, 1.0));
  });
  BuildResult result = unset.build();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.diagnostics().size(), 1u) << result.errors();
}

TEST(Diagnostics, ShapesThatDoNotBroadcastIn2D) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p) {
    Tensor a = arange(0, 16).column() + arange(0, 8).row(); // [16, 8]
    line = __LINE__ + 1;
    Tensor b = a * arange(0, 16);
  });
  expectError(k.build(), line, "*: shapes [16, 8] and [16] do not broadcast");
}

TEST(Diagnostics, ArangeOfNonPowerOfTwoLength) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p) {
    line = __LINE__ + 1;
    Tensor offsets = arange(0, 3000);
    store(p + offsets, 1.0);
  });
  expectError(k.build(), line, "arange(0, 3000): the length 3000 is not a power of two");
  expectError(k.build(), line, "arange(0, 4096) < n");
}

TEST(Diagnostics, ArangeOfNonPowerOfTwoFromAConst) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p, Const<int> BLOCK) {
    line = __LINE__ + 1;
    store(p + arange(0, BLOCK), 1.0);
  });
  EXPECT_TRUE(k.build({dyn, 1024}).ok());
  expectError(k.build({dyn, 1000}), line, "the length 1000 is not a power of two");
}

TEST(Diagnostics, DotOfIncompatibleShapes) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f16> p) {
    Tensor a = load(p + arange(0, 64).column() * 32 + arange(0, 32).row());  // [64, 32]
    Tensor b = load(p + arange(0, 16).column() * 128 + arange(0, 128).row()); // [16, 128]
    line = __LINE__ + 1;
    Tensor c = dot(a, b);
  });
  expectError(k.build(), line, "dot: inner dimensions differ: a is [64, 32] and b is [16, 128] (K = 32 vs 16)");
}

TEST(Diagnostics, ZeroRowsFromTakesAnI32RowCountOfATwoDimensionalDot) {
  int line = 0;
  auto wide = kernel("k", [&](Ptr<f16> p, Long rows) {
    Tensor a = load(p + arange(0, 16).column() * 16 + arange(0, 16).row());
    line = __LINE__ + 1;
    Tensor c = dot(a, a, zeros<f32>({16, 16}), ZeroRowsFrom{rows});
  });
  expectError(wide.build(), line, "dot: ZeroRowsFrom takes a scalar i32 (a row count), got i64");
  auto batched = kernel("k", [&](Ptr<f16> p, Int rows) {
    Tensor a = load(p + arange(0, 16).reshape({2, 2, 4}));
    line = __LINE__ + 1;
    Tensor c = dot(a, a.trans({0, 2, 1}), zeros<f32>({2, 2, 2}), ZeroRowsFrom{rows});
  });
  expectError(batched.build(), line, "dot: ZeroRowsFrom applies to 2-D dots, got a: tensor<2x2x4xf16>");
}

TEST(Diagnostics, DotOfOneDimensionalBlock) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f16> p) {
    Tensor a = load(p + arange(0, 64));
    line = __LINE__ + 1;
    Tensor c = dot(a, a);
  });
  expectError(k.build(), line, "dot: a must be a 2-D block (or 3-D: batch, rows, K), got tensor<64xf16>");
}

TEST(Diagnostics, DotAccumulatorOfWrongShape) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f16> p) {
    Tensor a = load(p + arange(0, 16).column() * 16 + arange(0, 16).row());
    line = __LINE__ + 1;
    Tensor c = dot(a, a, zeros<f32>({32, 16}));
  });
  expectError(k.build(), line, "dot: the accumulator must have shape [16, 16], got tensor<32x16xf32>");
}

TEST(Diagnostics, LoadThroughANonPointer) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p, Int n) {
    Tensor offsets = arange(0, 128);
    line = __LINE__ + 1;
    Tensor x = load(offsets, offsets < n);
  });
  expectError(k.build(), line, "load needs a pointer or a block of pointers (a Ptr<T> plus offsets), got tensor<128xi32>");
}

TEST(Diagnostics, StoreThroughANonPointer) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p, Int n) {
    line = __LINE__ + 1;
    store(n, 1.0);
  });
  expectError(k.build(), line, "store needs a pointer or a block of pointers");
}

TEST(Diagnostics, MaskOfTheWrongShape) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p, Int n) {
    Tensor offsets = arange(0, 128);
    Tensor mask = arange(0, 64) < n;
    line = __LINE__ + 1;
    Tensor x = load(p + offsets, mask, 0.0);
  });
  expectError(k.build(), line, "load: the mask has shape [64] but the pointers have shape [128]");
}

TEST(Diagnostics, StoreMaskOfTheWrongShape) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p, Int n) {
    Tensor offsets = arange(0, 16).column() * 16 + arange(0, 16).row();
    line = __LINE__ + 1;
    store(p + offsets, 0.0, arange(0, 256) < n);
  });
  expectError(k.build(), line, "store: the mask has shape [256] but the pointers have shape [16, 16]");
}

TEST(Diagnostics, MaskThatIsNotBoolean) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p) {
    Tensor offsets = arange(0, 32);
    line = __LINE__ + 1;
    Tensor x = load(p + offsets, offsets);
  });
  expectError(k.build(), line, "load: the mask must be i1 (a comparison such as offs < n), got tensor<32xi32>");
}

TEST(Diagnostics, OneMistakeGivesOneMessage) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p, Int n) {
    line = __LINE__ + 1;
    Tensor offsets = arange(0, 100);
    // Everything below uses the failed value; none of it adds a message.
    Tensor x = load(p + offsets, offsets < n, 0.0);
    store(p + offsets, exp(x) / sum(x, 0), offsets < n);
  });
  expectError(k.build(), line, "is not a power of two");
}

TEST(Diagnostics, IndependentMistakesAreAllReported) {
  int first = 0, second = 0;
  auto k = kernel("k", [&](Ptr<f32> p) {
    first = __LINE__ + 1;
    Tensor a = arange(0, 5);
    second = __LINE__ + 1;
    Tensor b = exp(arange(0, 8));
  });
  BuildResult result = k.build();
  ASSERT_EQ(result.diagnostics().size(), 2u) << result.errors();
  EXPECT_EQ(result.diagnostics()[0].line, static_cast<unsigned>(first));
  EXPECT_EQ(result.diagnostics()[1].line, static_cast<unsigned>(second));
  EXPECT_THAT(result.diagnostics()[1].message, HasSubstr("exp needs floating-point values, got tensor<8xi32>"));
}

// 8-bit floats are loaded, stored, converted and multiplied by dots; arithmetic on them is an error at its line
// that says to convert first (one message per mistake), while converting through them builds.
TEST(Diagnostics, ArithmeticOnEightBitFloatsSaysToConvertFirst) {
  int sumLine = 0, expLine = 0, reduceLine = 0;
  auto k = kernel("k", [&](Ptr<f8e4m3> p, Ptr<f32> out) {
    Tensor x = load(p + arange(0, 16));
    sumLine = __LINE__ + 1;
    Tensor y = x + x;
    expLine = __LINE__ + 1;
    Tensor z = exp(x);
    reduceLine = __LINE__ + 1;
    Tensor m = max(x, 0);
    store(out + arange(0, 16), x.to<f32>() * 2.0f);
    store(p + arange(0, 16), (x.to<f32>() * 2.0f).to<f8e4m3>());
  });
  BuildResult result = k.build();
  ASSERT_EQ(result.diagnostics().size(), 3u) << result.errors();
  EXPECT_EQ(result.diagnostics()[0].line, unsigned(sumLine));
  EXPECT_THAT(result.diagnostics()[0].message, HasSubstr("8-bit floats are stored, converted and multiplied by dot"));
  EXPECT_EQ(result.diagnostics()[1].line, unsigned(expLine));
  EXPECT_THAT(result.diagnostics()[1].message, HasSubstr("exp: 8-bit floats are not computed with"));
  EXPECT_EQ(result.diagnostics()[2].line, unsigned(reduceLine));
  EXPECT_THAT(result.diagnostics()[2].message, HasSubstr("convert with .to<f32>() first"));
}

// Sorting, scans and arg-reductions compare or add their elements, and there are no 8-bit atomics: on 8-bit floats
// each is one error at its line.
TEST(Diagnostics, OrderingEightBitFloatsSaysToConvertFirst) {
  std::vector<int> lines;
  auto k = kernel("k", [&](Ptr<f8e5m2> p, Ptr<i32> out) {
    Tensor x = load(p + arange(0, 16));
    lines.push_back(__LINE__ + 1);
    Tensor sorted = sort(x);
    lines.push_back(__LINE__ + 1);
    Tensor best = argmax(x, 0);
    lines.push_back(__LINE__ + 1);
    Tensor running = cumsum(x, 0);
    lines.push_back(__LINE__ + 1);
    Tensor top = topk(x, 4);
    lines.push_back(__LINE__ + 1);
    atomic_add(p + arange(0, 16), x);
  });
  BuildResult result = k.build();
  ASSERT_EQ(result.diagnostics().size(), lines.size()) << result.errors();
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(result.diagnostics()[i].line, unsigned(lines[i])) << result.errors();
    EXPECT_THAT(result.diagnostics()[i].message, HasSubstr("8-bit floats")) << result.errors();
  }
}

TEST(Diagnostics, UnsetHandle) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p) {
    Tensor never;
    line = __LINE__ + 1;
    store(p + never, 1.0);
  });
  expectError(k.build(), line, "got an unset handle");
}

TEST(Diagnostics, BlockWhereAScalarIsExpected) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p) {
    line = __LINE__ + 1;
    Int n = arange(0, 4);
  });
  expectError(k.build(), line, "expected a scalar i32, got tensor<4xi32>");
}

TEST(Diagnostics, NarrowingToATypedHandle) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p, Long big) {
    line = __LINE__ + 1;
    Int n = big + 1;
  });
  expectError(k.build(), line, "expected a scalar i32, got i64 (convert explicitly with .to<i32>())");
}

TEST(Diagnostics, ReductionAxisOutOfRange) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p) {
    Tensor x = load(p + arange(0, 8));
    line = __LINE__ + 1;
    Tensor m = max(x, 1);
  });
  expectError(k.build(), line, "max: axis 1 is out of range for tensor<8xf32> (rank 1)");
}

TEST(Diagnostics, PointerPlusPointer) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p, Ptr<f32> q) {
    line = __LINE__ + 1;
    Tensor r = p + q;
  });
  expectError(k.build(), line, "operator+: cannot combine two pointers");
}

TEST(Diagnostics, BitwiseOnFloats) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p) {
    Tensor x = load(p + arange(0, 8));
    line = __LINE__ + 1;
    Tensor y = x & 1;
  });
  expectError(k.build(), line, "operator&: bitwise operators need integers");
}

TEST(Diagnostics, CarriedValueChangesType) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p, Int n) {
    Tensor acc = zeros<f32>({16});
    line = __LINE__ + 1;
    for_range(0, n, 1, carry(acc), [&](Int i) { acc = acc.to<f16>(); });
  });
  expectError(k.build(), line, "for_range: carried handle 0 changes type from tensor<16xf32> to tensor<16xf16>");
}

TEST(Diagnostics, BlockConditionForIf) {
  int line = 0;
  auto k = kernel("k", [&](Ptr<f32> p, Int n) {
    line = __LINE__ + 1;
    if_(arange(0, 4) < n, [&] { store(p, 1.0); });
  });
  expectError(k.build(), line, "if_: the condition must be a scalar, got tensor<4xi1>");
}

TEST(Diagnostics, VerifierMessagesPointAtTheUsersLine) {
  // The DSL leaves element-width rules of atomics to the op verifier; its message still lands on this line.
  int line = 0;
  auto k = kernel("k", [&](Ptr<i8> p) {
    line = __LINE__ + 1;
    atomic(Atomic::Max, p + arange(0, 4), 1);
  });
  expectError(k.build(), line, "atomics work on 16-, 32- or 64-bit elements, got 'i8'");
}

// Atomics that would lose the value silently, or that the hardware has no instruction for, are errors at the
// user's line in the user's words (an f32 add into i32 memory truncated 0.5 to 0; atomic max on f16 reported
// "'brick.atomic_rmw' op 16-bit atomics support only fadd").
TEST(Diagnostics, AtomicsThatWouldTruncateOrHaveNoInstruction) {
  int line = 0;
  auto truncating = kernel("k", [&](Ptr<i32> p, Float x) {
    line = __LINE__ + 1;
    atomic_add(p + arange(0, 4), x);
  });
  expectError(truncating.build(), line,
              "atomic add: the value is floating-point but memory holds i32, which would truncate it; convert it first (.to<i32>())");
  auto literal = kernel("k", [&](Ptr<i32> p) {
    line = __LINE__ + 1;
    atomic_add(p + arange(0, 4), 0.5);
  });
  expectError(literal.build(), line, "atomic add: the value is floating-point but memory holds i32");
  auto half = kernel("k", [&](Ptr<f16> p) {
    line = __LINE__ + 1;
    atomic(Atomic::Max, p + arange(0, 4), 1.0);
  });
  expectError(half.build(), line, "atomic max on f16 elements: 16-bit atomics can only add; keep the data in 32 bits to use max");
  // What is exact stays allowed: integer values into float memory, f16 adds.
  auto fine = kernel("k", [](Ptr<f32> p, Ptr<f16> h, Int n) {
    atomic_add(p + arange(0, 4), n);
    atomic_add(h + arange(0, 4), 1.0);
  });
  EXPECT_TRUE(fine.build().ok()) << fine.build().errors();
}

TEST(Diagnostics, SpecializationWithTheWrongArity) {
  int line = __LINE__ + 1;
  auto k = kernel("scale", [](Ptr<f32> p, Const<int> N) { store(p + arange(0, N), 0.0); });
  expectError(k.build({dyn}), line, "kernel 'scale' has 2 parameters but the specialization gives 1 arguments");
}

TEST(Diagnostics, ConstParameterWithoutAValue) {
  int line = __LINE__ + 1;
  auto k = kernel("scale", [](Ptr<f32> p, Const<int> N) { store(p + arange(0, N), 0.0); });
  expectError(k.build({dyn, dyn}), line, "parameter 1 (a Const of i32) needs its value in the specialization");
}

TEST(Diagnostics, ConstantForARuntimeParameter) {
  int line = __LINE__ + 1;
  auto k = kernel("scale", [](Ptr<f32> p, Int n) {});
  expectError(k.build({dyn, 3}), line, "parameter 1 (a runtime scalar of i32) is passed at launch");
}

TEST(Diagnostics, OpsOutsideAKernelDoNotCrash) {
  ::testing::internal::CaptureStderr();
  Tensor x = arange(0, 8);
  Tensor y = x + 1;
  std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(x.isSet());
  EXPECT_FALSE(y.isSet());
  EXPECT_THAT(printed, HasSubstr("brick::arange used outside a kernel body"));
}

} // namespace
