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

auto rotate() {
  return kernel("rotate", [](Ptr<i32> out, Ptr<i32> in, Int n, Const<int> BLOCK) {
    Tensor i = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor x = load(in + i, i < n);
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

TEST(InlineAsm, TheInterpreterRefusesItAtTheUsersLine) {
  std::vector<int32_t> in(256, 1), out(256);
  runtime::Device cpu = runtime::Device::interpreter();
  runtime::Error error = rotate().launch(Grid{1}, LaunchOptions{.device = &cpu}, out.data(), in.data(), 256, 256);
  ASSERT_TRUE(error);
  EXPECT_THAT(error.message(), HasSubstr("InlineAsmTest.cpp:20"));
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
  EXPECT_THAT(packed.build().errors(), HasSubstr("pack 4 is not supported yet"));
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
