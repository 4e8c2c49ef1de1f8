//===- DSLSemanticsTest.cpp - What the DSL's operators and functions build -----===//

#include "DSLTestUtils.h"

#include "brick/Dialect/Brick/BrickDialect.h"
#include "brick/JIT/Compile.h"
#include "brick/Target/PTX.h"

#include <gmock/gmock.h>

using namespace brick;
using brick::testing::countOps;
using ::testing::HasSubstr;

namespace {

/// Builds a one-parameter kernel and returns its IR, failing the test on errors.
template <class F> std::string irOf(F body) {
  BuildResult result = kernel("k", body).build();
  EXPECT_TRUE(result.ok()) << result.errors();
  return result.ir();
}

TEST(Semantics, BroadcastingFollowsNumPy) {
  std::vector<int64_t> shape;
  irOf([&](Ptr<f32> p) {
    Tensor column = arange(0, 64).column(); // [64, 1]
    Tensor row = arange(0, 32).row();       // [1, 32]
    shape = (column + row).shape();
    EXPECT_EQ((arange(0, 32) + column).shape(), (std::vector<int64_t>{64, 32})); // rank 1 aligns on the right
    EXPECT_EQ((column * 3).shape(), (std::vector<int64_t>{64, 1}));             // a scalar splats
  });
  EXPECT_EQ(shape, (std::vector<int64_t>{64, 32}));
}

TEST(Semantics, TypePromotion) {
  irOf([](Ptr<f32> p, Ptr<bf16> q, Int n, Long m) {
    Tensor ints = arange(0, 16);
    EXPECT_EQ((ints + 1).dtype(), DType::I32);          // an integer literal adopts the block's type
    EXPECT_EQ((ints + 2.5).dtype(), DType::F32);        // a float literal makes it float
    EXPECT_EQ((ints + m).dtype(), DType::I64);          // the wider integer wins
    EXPECT_EQ((ints < n).dtype(), DType::I1);           // comparisons give i1
    Tensor halves = load(q + ints);
    EXPECT_EQ((halves * 2.0).dtype(), DType::BF16);     // a float literal adopts the block's float type
    EXPECT_EQ((halves + load(p + ints)).dtype(), DType::F32);
    EXPECT_EQ(((ints < n) + (ints < n)).dtype(), DType::I32); // arithmetic on booleans is arithmetic on i32
    EXPECT_EQ(((ints < n) & (ints > 3)).dtype(), DType::I1);  // logic on booleans stays boolean
    EXPECT_EQ((ints + (int64_t(1) << 40)).dtype(), DType::I64); // a literal too wide for i32 widens
  });
}

TEST(Semantics, IntegerDivisionIsCDivision) {
  auto ops = countOps(kernel("k", [](Ptr<i32> p, Int n) {
    Tensor x = load(p + arange(0, 8));
    store(p + arange(0, 8), x / n + x % n);
  }));
  EXPECT_EQ(ops["arith.divsi"], 1);
  EXPECT_EQ(ops["arith.remsi"], 1);
}

TEST(Semantics, PointerArithmetic) {
  std::string ir = irOf([](Ptr<f16> p, Int n) {
    Tensor offsets = arange(0, 64);
    Tensor pointers = p + offsets;
    EXPECT_TRUE(pointers.isPointer());
    EXPECT_EQ(pointers.dtype(), DType::F16);
    EXPECT_EQ(pointers.shape(), (std::vector<int64_t>{64}));
    store(pointers - n, load(offsets + p)); // integer + pointer, pointer - integer
  });
  EXPECT_THAT(ir, HasSubstr("brick.addptr"));
  EXPECT_THAT(ir, HasSubstr("arith.subi")); // p - n is p + (0 - n)
}

TEST(Semantics, CastsFollowC) {
  auto ops = countOps(kernel("k", [](Ptr<f32> p, Ptr<i8> q) {
    Tensor x = load(p + arange(0, 8));
    Tensor asInt = x.to<i32>();        // truncation toward zero
    Tensor asBool = x.to<i1>();        // != 0
    Tensor back = asBool.to<f32>();    // 0 or 1
    Tensor small = asInt.to<i8>();
    Tensor half = x.to<f16>().to<bf16>(); // f16 -> bf16 through f32
    store(q + arange(0, 8), small);
    store(p + arange(0, 8), back + half.to<f32>());
  }));
  EXPECT_EQ(ops["arith.fptosi"], 1);
  EXPECT_EQ(ops["arith.cmpf"], 1);
  EXPECT_EQ(ops["arith.uitofp"], 1);
  EXPECT_EQ(ops["arith.trunci"], 1);
  EXPECT_EQ(ops["arith.truncf"], 2); // f32 -> f16, f32 -> bf16
}

TEST(Semantics, LoadConvertsOtherAndStoreConvertsValue) {
  std::string ir = irOf([](Ptr<f16> p, Int n) {
    Tensor offsets = arange(0, 32);
    Tensor x = load(p + offsets, offsets < n, -1); // an int literal becomes f16 -1.0
    store(p + offsets, x.to<f32>() * 2.0f, offsets < n); // f32 stored into f16 memory
  });
  EXPECT_THAT(ir, HasSubstr("arith.constant -1.000000e+00 : f16"));
  EXPECT_THAT(ir, HasSubstr("arith.truncf"));
}

TEST(Semantics, MaskBroadcastsToThePointers) {
  std::string ir = irOf([](Ptr<f32> p, Int n) {
    Tensor rows = arange(0, 16).column(), cols = arange(0, 8).row();
    Tensor pointers = p + rows * 8 + cols;  // [16, 8]
    store(pointers, load(pointers, rows < n), rows < n); // a [16, 1] mask
  });
  EXPECT_THAT(ir, HasSubstr("brick.broadcast %"));
  EXPECT_THAT(ir, HasSubstr("tensor<16x1xi1> -> tensor<16x8xi1>"));
}

TEST(Semantics, ReductionsAndArgmax) {
  std::vector<int64_t> shapes[4];
  DType types[4];
  auto ops = countOps(kernel("k", [&](Ptr<f16> p, Ptr<i32> out) {
    Tensor x = load(p + arange(0, 16).column() * 32 + arange(0, 32).row()); // [16, 32] f16
    Tensor results[4] = {sum(x, 1), max(x, 0), argmax(x, 1), min(x, -1)};
    for (int i = 0; i < 4; ++i)
      shapes[i] = results[i].shape(), types[i] = results[i].dtype();
    store(out + arange(0, 16), results[2]);
    Tensor total = sum(sum(x, 0), 0); // a scalar
    EXPECT_TRUE(total.isScalar());
  }));
  EXPECT_EQ(shapes[0], (std::vector<int64_t>{16}));
  EXPECT_EQ(types[0], DType::F32); // f16 sums accumulate in f32
  EXPECT_EQ(shapes[1], (std::vector<int64_t>{32}));
  EXPECT_EQ(types[1], DType::F16);
  EXPECT_EQ(types[2], DType::I32);
  EXPECT_EQ(shapes[3], (std::vector<int64_t>{16}));
  EXPECT_EQ(ops["brick.reduce"], 6);
}

TEST(Semantics, CustomReduce) {
  std::string ir = irOf([](Ptr<i32> p) {
    Tensor x = load(p + arange(0, 64));
    store(p, reduce(x, 0, [](Tensor a, Tensor b) { return a ^ b; }));
  });
  EXPECT_THAT(ir, HasSubstr("arith.xori %arg"));
  EXPECT_THAT(ir, HasSubstr("brick.reduce.return"));
}

TEST(Semantics, DotDefaultsMatchTriton) {
  std::string ir = irOf([](Ptr<f32> p, Ptr<i8> q, Ptr<i32> r) {
    Tensor idx = arange(0, 16).column() * 16 + arange(0, 16).row();
    Tensor x = load(p + idx);
    store(p + idx, dot(x, x));                                   // f32: tf32 by default
    store(p + idx, dot(x, x, zeros<f32>({16, 16}), Precision::IEEE));
    Tensor i = load(q + idx);
    store(r + idx, dot(i, i));                                   // i8 accumulates in i32
  });
  EXPECT_THAT(ir, HasSubstr("inputPrecision = tf32 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>"));
  EXPECT_THAT(ir, HasSubstr(": tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>\n"));
  EXPECT_THAT(ir, HasSubstr("tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xi32>"));
}

TEST(Semantics, LoopCarriesValues) {
  std::string ir = irOf([](Ptr<f32> p, Int n) {
    Tensor acc = zeros<f32>({32});
    Tensor pointers = p + arange(0, 32);
    for_range(0, n, 1, carry(acc, pointers), [&](Int i) {
      acc = acc + load(pointers);
      pointers = pointers + 32;
    });
    store(p + arange(0, 32), acc);
  });
  EXPECT_THAT(ir, HasSubstr("iter_args("));
  EXPECT_THAT(ir, HasSubstr("-> (tensor<32xf32>, tensor<32x!brick.ptr<f32>>)"));
  EXPECT_THAT(ir, HasSubstr("scf.yield"));
  // After the loop the handle holds the loop's result, so the store adds the results, not the initial zeros.
  EXPECT_THAT(ir, ::testing::ContainsRegex("brick.store %[0-9]+, %[0-9]+#0 : tensor<32x!brick.ptr<f32>>"));
}

TEST(Semantics, LoopCarriesVectorsOfHandles) {
  std::string ir = irOf([](Ptr<f32> p, Int n) {
    std::vector<Tensor> parts{zeros<f32>({16}), full<f32>({16}, 1.0)};
    Tensor count = zeros<i32>({16});
    for_range(0, n, 1, carry(parts, count), [&](Int i) {
      parts[0] = parts[0] + 2.0;
      parts[1] = parts[1] * 3.0;
      count = count + 1;
    });
    store(p + arange(0, 16), parts[0] + parts[1] + count.to<f32>());
  });
  // Each element of the vector is carried, in order, then the other handles.
  EXPECT_THAT(ir, HasSubstr("-> (tensor<16xf32>, tensor<16xf32>, tensor<16xi32>)"));
  EXPECT_THAT(ir, ::testing::ContainsRegex("arith.addf %[0-9]+#0, %[0-9]+#1"));
}

TEST(Semantics, EightBitFloatsConvertThroughF32FromIntegersAndF64) {
  std::string ir = irOf([](Ptr<f8e4m3> p, Ptr<f8e5m2> q, Ptr<f64> d, Ptr<i32> n) {
    Tensor i = arange(0, 16);
    Tensor x = load(p + i);
    store(q + i, x.to<f8e5m2>());               // e4m3 -> f32 -> e5m2
    store(p + i, load(d + i).to<f8e4m3>());     // f64 -> f32 -> e4m3: one rounding to 8 bits, from f32 as the GPU's
    store(n + i, x.to<i32>());                  // e4m3 -> f32 -> i32
    store(p + i, full<f8e4m3>({16}, 1.5));      // a constant: f32, converted
  });
  EXPECT_THAT(ir, ::testing::ContainsRegex("arith.extf %[0-9]+ : tensor<16xf8E4M3FN> to tensor<16xf32>"));
  EXPECT_THAT(ir, ::testing::ContainsRegex("arith.truncf %[0-9]+ : tensor<16xf32> to tensor<16xf8E5M2>"));
  EXPECT_THAT(ir, ::testing::ContainsRegex("arith.truncf %[0-9]+ : tensor<16xf64> to tensor<16xf32>"));
  EXPECT_THAT(ir, ::testing::ContainsRegex("arith.fptosi %[0-9]+ : tensor<16xf32> to tensor<16xi32>"));
  EXPECT_THAT(ir, ::testing::Not(HasSubstr("f64> to tensor<16xf8")));
}

TEST(Semantics, IfSelectsCarriedValues) {
  std::string ir = irOf([](Ptr<f32> p, Int n) {
    Tensor x = zeros<f32>({8});
    if_(n > 4, carry(x), [&] { x = x + 1.0; }, [&] { x = x - 1.0; });
    store(p + arange(0, 8), x);
    if_(n == 0, [&] { store(p, 0.0); });
  });
  EXPECT_THAT(ir, HasSubstr("scf.if %"));
  EXPECT_THAT(ir, HasSubstr("-> (tensor<8xf32>)"));
  EXPECT_THAT(ir, HasSubstr("} else {"));
}

TEST(Semantics, ConstParametersSpecialize) {
  auto k = kernel("k", [](Ptr<f32> p, Const<int> N, Const<bool> twice, Const<float> scale) {
    Tensor x = load(p + arange(0, N));
    if (twice) // C++ control flow on a Const picks what gets built
      x = x * 2;
    store(p + arange(0, N), x * scale);
  });
  BuildResult a = k.build({dyn, 64, true, 0.5f}), b = k.build({dyn, 128, false, 2.0});
  ASSERT_TRUE(a.ok()) << a.errors();
  ASSERT_TRUE(b.ok()) << b.errors();
  EXPECT_THAT(a.ir(), HasSubstr("tensor<64xf32>"));
  EXPECT_THAT(a.ir(), HasSubstr("arith.constant 5.000000e-01 : f32"));
  EXPECT_THAT(b.ir(), HasSubstr("tensor<128xf32>"));
  EXPECT_EQ(countOps(k, {dyn, 64, true, 0.5f})["arith.mulf"], 2);
  EXPECT_EQ(countOps(k, {dyn, 64, false, 0.5f})["arith.mulf"], 1);
}

TEST(Semantics, EveryOpRecordsTheUsersLine) {
  int line = 0;
  mlir::MLIRContext context;
  std::vector<std::pair<std::string, unsigned>> lines;
  auto k = kernel("k", [&](Ptr<f32> p) {
    line = __LINE__ + 1;
    store(p + arange(0, 4), exp(load(p + arange(0, 4))));
  });
  BuildResult result = k.build(&context, {}, [&](mlir::Operation *module) {
    module->walk([&](mlir::Operation *op) {
      if (op->getDialect() && op->getDialect()->getNamespace() != "builtin" && !mlir::isa<mlir::func::FuncOp>(op) &&
          !mlir::isa<mlir::func::ReturnOp>(op))
        if (auto loc = mlir::dyn_cast<mlir::FileLineColLoc>(op->getLoc()))
          lines.emplace_back(op->getName().getStringRef().str(), loc.getLine());
    });
  });
  ASSERT_TRUE(result.ok()) << result.errors();
  ASSERT_GE(lines.size(), 6u);
  for (auto &[name, opLine] : lines)
    EXPECT_EQ(opLine, static_cast<unsigned>(line)) << name;
}

TEST(Semantics, MathFunctions) {
  auto ops = countOps(kernel("k", [](Ptr<f32> p) {
    Tensor x = load(p + arange(0, 8));
    Tensor y = exp(x) + exp2(x) + log(x) + log2(x) + sqrt(x) + rsqrt(x) + abs(x) + sin(x) + cos(x) + erf(x) +
               sigmoid(x) + tanh(x) + floor(x) + ceil(x) + where(x > 0, x, 0) + maximum(x, 1) + minimum(x, -1);
    store(p + arange(0, 8), -y);
  }));
  for (const char *op : {"math.exp2", "math.log", "math.log2", "math.sqrt", "math.rsqrt", "math.absf", "math.sin",
                         "math.cos", "math.erf", "math.tanh", "math.floor", "math.ceil", "arith.select",
                         "arith.maxnumf", "arith.minnumf", "arith.negf"})
    EXPECT_GE(ops[op], 1) << op;
  EXPECT_EQ(ops["math.exp"], 2); // exp and sigmoid
}

TEST(Semantics, AtomicsAndDebugging) {
  auto ops = countOps(kernel("k", [](Ptr<f32> p, Ptr<i32> q) {
    Tensor offsets = arange(0, 16);
    Tensor old = atomic_add(p + offsets, 1.0, offsets < 8);
    atomic(Atomic::Max, q + offsets, offsets);
    atomic_cas(q + offsets, 0, offsets);
    device_assert(old >= 0, "negative");
    device_print("old = ", {old});
  }));
  EXPECT_EQ(ops["brick.atomic_rmw"], 2);
  EXPECT_EQ(ops["brick.atomic_cas"], 1);
  EXPECT_EQ(ops["brick.assert"], 1);
  EXPECT_EQ(ops["brick.print"], 1);
}

auto batchedDot() {
  return kernel("batched_dot", [](Ptr<f32> c, Ptr<f32> a, Ptr<f32> b) {
    Tensor q = arange(0, 2).reshape({2, 1, 1});
    Tensor rows = arange(0, 4).reshape({1, 4, 1}), ks = arange(0, 8).reshape({1, 1, 8});
    Tensor kRows = arange(0, 8).reshape({1, 8, 1}), columns = arange(0, 4).reshape({1, 1, 4});
    store(c + q * 16 + rows * 4 + columns,
          dot(load(a + q * 32 + rows * 8 + ks), load(b + q * 32 + kRows * 4 + columns), zeros<f32>({2, 4, 4}),
              Precision::IEEE));
  });
}

TEST(BatchedDot, EachBatchMultipliesItsOwnMatrices) {
  std::vector<float> a(64), b(64), c(32);
  for (int i = 0; i < 64; ++i)
    a[i] = float(i % 7) - 3, b[i] = float(i % 5) * 0.5f;
  ASSERT_FALSE(batchedDot().launch(Grid{1}, LaunchOptions{.device = &brick::testing::cpu()}, c.data(), a.data(), b.data()));
  for (int q = 0; q < 2; ++q)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        float expected = 0;
        for (int p = 0; p < 8; ++p)
          expected += a[q * 32 + i * 8 + p] * b[q * 32 + p * 4 + j];
        ASSERT_EQ(c[q * 16 + i * 4 + j], expected) << q << ": " << i << "," << j;
      }
}

TEST(BatchedDot, TakesTensorCoresWhereTheTypesFit) {
  // 4 batches of 32xK times Kx32 in f16, K in a loop of 16-wide steps: mma.sync m16n8k16 with operands through
  // ldmatrix, on sm_80 and on sm_90a (wgmma is for 2-D dots).
  auto kernel = brick::kernel("batched_f16", [](Ptr<f32> c, Ptr<f16> a, Ptr<f16> b, Int K) {
    Tensor q = arange(0, 4).reshape({4, 1, 1});
    Tensor rows = arange(0, 32).reshape({1, 32, 1}), ks = arange(0, 16).reshape({1, 1, 16});
    Tensor kRows = arange(0, 16).reshape({1, 16, 1}), columns = arange(0, 32).reshape({1, 1, 32});
    Tensor aTile = a + q * 32 * K + rows * K + ks, bTile = b + q * 32 * K + kRows * 32 + columns;
    Tensor acc = zeros<f32>({4, 32, 32});
    for_range(0, cdiv(K, 16), 1, carry(acc, aTile, bTile), [&](Int k) {
      acc = dot(load(aTile, ks < K - k * 16, 0), load(bTile, kRows < K - k * 16, 0), acc);
      aTile = aTile + 16;
      bTile = bTile + 16 * 32;
    });
    store(c + q * 1024 + rows * 32 + columns, acc);
  });
  Specialization specialization{Arg::divisibleBy(16), Arg::divisibleBy(16), Arg::divisibleBy(16), Arg::divisibleBy(16)};
  for (const char *target : {"sm_80", "sm_90a"}) {
    auto compiled = compileKernel(kernel, specialization, {.target = target, .stage = "ptx"});
    ASSERT_TRUE(compiled) << target << ": " << compiled.error().message();
    EXPECT_THAT(compiled->text, HasSubstr("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")) << target;
    EXPECT_THAT(compiled->text, HasSubstr("ldmatrix.sync.aligned")) << target;
    EXPECT_THAT(compiled->text, HasSubstr("cp.async")) << target; // the K loop's loads are pipelined
    EXPECT_THAT(compiled->text, ::testing::Not(HasSubstr("wgmma"))) << target;
    if (!findPtxas().empty()) {
      auto cubin = compileKernel(kernel, specialization, {.target = target, .stage = "cubin"});
      EXPECT_TRUE(cubin) << target << ": " << cubin.error().message();
    }
  }
}

TEST(BatchedDot, IeeePrecisionRunsOnTheFmaPath) {
  for (const char *target : {"sm_80", "sm_90a"}) {
    auto compiled = compileKernel(batchedDot(), {dyn, dyn, dyn}, {.target = target, .stage = "ptx"});
    ASSERT_TRUE(compiled) << target << ": " << compiled.error().message();
    EXPECT_THAT(compiled->text, HasSubstr("fma.rn.f32")) << target;
    EXPECT_THAT(compiled->text, ::testing::Not(HasSubstr("mma"))) << target;
  }
  if (!findPtxas().empty()) {
    auto cubin = compileKernel(batchedDot(), {dyn, dyn, dyn}, {.target = "sm_90a", .stage = "cubin"});
    EXPECT_TRUE(cubin) << cubin.error().message();
  }
}

TEST(BatchedDot, MismatchedBatchesAreErrorsAtTheUsersLine) {
  auto batches = kernel("batches", [](Ptr<f32> out) {
    store(out + arange(0, 32).reshape({2, 4, 4}), dot(zeros<f16>({2, 4, 8}), zeros<f16>({4, 8, 4})));
  });
  EXPECT_THAT(batches.build().errors(), HasSubstr("DSLSemanticsTest.cpp"));
  EXPECT_THAT(batches.build().errors(), HasSubstr("dot: a and b have different batch sizes"));
  auto ranks = kernel("ranks", [](Ptr<f32> out) {
    store(out + arange(0, 32).reshape({2, 4, 4}), dot(zeros<f16>({2, 4, 8}), zeros<f16>({8, 4})));
  });
  EXPECT_THAT(ranks.build().errors(), HasSubstr("dot: b must be a 3-D block like a"));
}

} // namespace
