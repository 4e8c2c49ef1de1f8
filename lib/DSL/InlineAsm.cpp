//===- InlineAsm.cpp - inline_asm_elementwise: the programmer's PTX once per element ------------------===//

#include "KernelBuilder.h"

#include "brick/DSL/Ops.h"

using namespace mlir;
namespace bir = mlir::brick;

namespace brick {

std::vector<Tensor> inline_asm_elementwise(const std::string &asmText, const std::string &constraints,
                                           const std::vector<Operand> &args, const std::vector<DType> &results,
                                           bool pure, int pack, Loc loc) {
  KernelBuilder *kb = KernelBuilder::current("inline_asm_elementwise", loc);
  if (!kb)
    return {};
  auto failAll = [&](const std::string &message) {
    kb->error(loc, "inline_asm_elementwise: " + message);
    std::vector<Tensor> poisoned;
    for (DType type : results)
      poisoned.push_back(kb->poison(kb->type(type)));
    return poisoned;
  };
  if (results.empty())
    return failAll("give at least one result type");
  if (pack < 1 || pack > 16 || (pack & (pack - 1)) != 0)
    return failAll("pack " + std::to_string(pack) + " is not 1, 2, 4, 8 or 16 (elements per invocation)");
  // Literals are i32 or f32; every operand broadcasts to one shape.
  SmallVector<Value> values;
  for (const Operand &arg : args) {
    Type like;
    if (detail::Access::isLiteral(arg))
      like = detail::Access::isFloatLiteral(arg) ? Type(kb->builder().getF32Type()) : kb->builder().getI32Type();
    Value value = kb->use(arg, like, "inline_asm_elementwise", loc);
    if (!value || kb->isPoison(value)) {
      std::vector<Tensor> poisoned;
      for (DType type : results)
        poisoned.push_back(kb->poison(kb->type(type)));
      return poisoned;
    }
    if (isa<bir::PointerType>(getElementTypeOrSelf(value.getType())))
      return failAll("operands are numbers, not pointers (" + detail::describe(value.getType()) + ")");
    values.push_back(value);
  }
  SmallVector<int64_t> shape;
  if (!values.empty()) {
    Value widest = values.front();
    for (Value value : values) {
      auto [a, b] = kb->broadcastPair(widest, value, "inline_asm_elementwise", loc);
      if (!a)
        return failAll("its operands' shapes do not broadcast together");
      widest = a;
    }
    if (auto tensor = dyn_cast<RankedTensorType>(widest.getType()))
      shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    for (Value &value : values)
      value = kb->broadcastTo(value, shape, "inline_asm_elementwise", loc);
  }
  SmallVector<Type> resultTypes;
  for (DType type : results)
    resultTypes.push_back(shape.empty() ? kb->type(type) : Type(RankedTensorType::get(shape, kb->type(type))));
  // One "=..." per register of each result, then one constraint per register of each operand (what the op's
  // verifier checks, said at this line): 8- and 16-bit elements share 32-bit registers under pack > 1.
  SmallVector<StringRef> parts;
  StringRef(constraints).split(parts, ',', -1, false);
  int64_t outputs = llvm::count_if(parts, [](StringRef part) { return part.trim().starts_with("="); });
  int64_t inputs = int64_t(parts.size()) - outputs, wantOutputs = 0, wantInputs = 0;
  for (Type type : resultTypes)
    wantOutputs += bir::InlineAsmElementwiseOp::registersPerInvocation(getElementTypeOrSelf(type), pack);
  for (Value value : values)
    wantInputs += bir::InlineAsmElementwiseOp::registersPerInvocation(getElementTypeOrSelf(value.getType()), pack);
  if (outputs != wantOutputs || inputs != wantInputs)
    return failAll("constraints '" + constraints + "' name " + std::to_string(outputs) + " outputs and " +
                   std::to_string(inputs) + " inputs, for " + std::to_string(results.size()) + " results and " +
                   std::to_string(values.size()) + " operands" +
                   (pack == 1 ? std::string()
                              : " at pack " + std::to_string(pack) + ", which need " + std::to_string(wantOutputs) +
                                    " and " + std::to_string(wantInputs) +
                                    " (8- and 16-bit elements share 32-bit registers)"));
  auto op = bir::InlineAsmElementwiseOp::create(kb->builder(), kb->location(loc), resultTypes, asmText, constraints,
                                                pure, uint32_t(pack), values);
  std::vector<Tensor> out;
  for (Value result : op.getResults())
    out.push_back(detail::Access::wrap(result));
  return out;
}

Tensor inline_asm_elementwise(const std::string &asmText, const std::string &constraints,
                              const std::vector<Operand> &args, DType result, bool pure, int pack, Loc loc) {
  std::vector<Tensor> results = inline_asm_elementwise(asmText, constraints, args, std::vector<DType>{result}, pure,
                                                       pack, loc);
  return results.empty() ? Tensor() : results.front();
}

} // namespace brick
