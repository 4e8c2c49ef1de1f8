//===- InlineAsmTest.cpp - inline_asm_elementwise: the PTX lands in the kernel, mistakes are errors at the
//                         user's line, and the interpreter refuses it clearly ---===//

#include "brick/JIT/Compile.h"
#include "brick/JIT/JIT.h"
#include "brick/Target/PTX.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace brick;
using ::testing::HasSubstr;

namespace {

/// The line of rotate()'s first inline_asm_elementwise, which the interpreter's refusal names.
int rotateLine = 0;

auto rotate() {
  return kernel("rotate", [](Ptr<i32> out, Ptr<i32> in, Int n, Const<int> BLOCK) {
    Tensor i = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor x = load(in + i, i < n);
    rotateLine = __LINE__ + 1;
    Tensor rotated = inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $1, $2;", "=r,r,r", {x, 8}, DType::I32);
    std::vector<Tensor> sumAndCarry =
        inline_asm_elementwise("add.cc.u32 $0, $2, $3;\n\taddc.u32 $1, 0, 0;", "=r,=r,r,r", {rotated, x},
                               {DType::I32, DType::I32});
    store(out + i, sumAndCarry[0] ^ (sumAndCarry[1] << 31), i < n);
  });
}

TEST(InlineAsm, ThePtxLandsInTheKernelAndAssembles) {
  auto compiled = compileKernel(rotate(), {dyn, dyn, dyn, 256}, {.target = "sm_90a", .stage = "ptx"});
  ASSERT_TRUE(compiled) << compiled.error().message();
  EXPECT_THAT(compiled->text, HasSubstr("shf.l.wrap.b32"));
  EXPECT_THAT(compiled->text, HasSubstr("addc.u32"));
  if (!findPtxas().empty()) {
    auto cubin = compileKernel(rotate(), {dyn, dyn, dyn, 256}, {.target = "sm_80", .stage = "cubin"});
    EXPECT_TRUE(cubin) << cubin.error().message();
  }
}

/// pack > 1: two f32 in and one register of two f16 out; four i8 in one register, each way.
auto packed() {
  return kernel("packed", [](Ptr<f16> half, Ptr<i8> bytes, Ptr<f32> in, Int n, Const<int> BLOCK) {
    Tensor i = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor x = load(in + i, i < n);
    store(half + i, inline_asm_elementwise("cvt.rn.f16x2.f32 $0, $2, $1;", "=r,r,r", {x}, DType::F16, true, 2), i < n);
    Tensor b = load(bytes + i, i < n);
    store(bytes + i, inline_asm_elementwise("and.b32 $0, $1, 0x7f7f7f7f;", "=r,r", {b}, DType::I8, true, 4), i < n);
  });
}

TEST(InlineAsm, PackedInvocationsShareRegistersAndAssemble) {
  auto compiled = compileKernel(packed(), {dyn, dyn, dyn, dyn, 1024}, {.target = "sm_90a", .stage = "ptx"});
  ASSERT_TRUE(compiled) << compiled.error().message();
  auto count = [&](const std::string &needle) {
    size_t found = 0;
    for (size_t at = compiled->text.find(needle); at != std::string::npos; at = compiled->text.find(needle, at + 1))
      ++found;
    return found;
  };
  EXPECT_GT(count("cvt.rn.f16x2.f32"), 0u);
  EXPECT_GT(count("0x7f7f7f7f"), 0u);
  // Every element of a thread goes through exactly one invocation, `pack` at a time: 1024 elements over 128 threads
  // are 8 a thread, so four cvt (pack 2) and two and.b32 (pack 4).
  EXPECT_EQ(count("cvt.rn.f16x2.f32"), 1024u / 128 / 2) << compiled->text;
  EXPECT_EQ(count("0x7f7f7f7f"), 1024u / 128 / 4) << compiled->text;
  if (!findPtxas().empty())
    for (int block : {1024, 32}) { // 32: a thread holds fewer elements than a pack, which is padded
      auto cubin = compileKernel(packed(), {dyn, dyn, dyn, dyn, block}, {.target = "sm_80", .stage = "cubin"});
      EXPECT_TRUE(cubin) << block << ": " << cubin.error().message();
    }
}

TEST(InlineAsm, TheInterpreterRefusesItAtTheUsersLine) {
  std::vector<int32_t> in(256, 1), out(256);
  runtime::Device cpu = runtime::Device::interpreter();
  runtime::Error error = rotate().launch(Grid{1}, LaunchOptions{.device = &cpu}, out.data(), in.data(), 256, 256);
  ASSERT_TRUE(error);
  EXPECT_THAT(error.message(), HasSubstr("InlineAsmTest.cpp:" + std::to_string(rotateLine)));
  EXPECT_THAT(error.message(), HasSubstr("inline_asm_elementwise runs PTX, which only a GPU can"));
}

TEST(InlineAsm, MisuseIsAnErrorAtTheUsersLine) {
  auto counts = kernel("counts", [](Ptr<i32> out) {
    store(out + arange(0, 16), inline_asm_elementwise("mov.b32 $0, $1;", "=r,r,r", {arange(0, 16)}, DType::I32));
  });
  BuildResult built = counts.build();
  EXPECT_THAT(built.errors(), HasSubstr("InlineAsmTest.cpp"));
  EXPECT_THAT(built.errors(), HasSubstr("constraints '=r,r,r' name 1 outputs and 2 inputs, for 1 results and 1 "
                                        "operands"));
  auto packed = kernel("packed", [](Ptr<i32> out) {
    store(out + arange(0, 16), inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", {arange(0, 16)}, DType::I32, true, 4));
  });
  EXPECT_THAT(packed.build().errors(), HasSubstr("constraints '=r,r' name 1 outputs and 1 inputs, for 1 results and "
                                                 "1 operands at pack 4, which need 4 and 4"));
  auto three = kernel("three", [](Ptr<i32> out) {
    store(out + arange(0, 16), inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", {arange(0, 16)}, DType::I32, true, 3));
  });
  EXPECT_THAT(three.build().errors(), HasSubstr("pack 3 is not 1, 2, 4, 8 or 16"));
  auto pointers = kernel("pointers", [](Ptr<i32> out) {
    store(out, inline_asm_elementwise("mov.b64 $0, $1;", "=l,l", {out}, DType::I64));
  });
  EXPECT_THAT(pointers.build().errors(), HasSubstr("operands are numbers, not pointers"));
  auto shapes = kernel("shapes", [](Ptr<i32> out) {
    store(out + arange(0, 16),
          inline_asm_elementwise("add.s32 $0, $1, $2;", "=r,r,r", {arange(0, 16), arange(0, 8)}, DType::I32));
  });
  EXPECT_THAT(shapes.build().errors(), HasSubstr("shapes do not broadcast"));
}

} // namespace
