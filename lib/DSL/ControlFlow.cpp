//===- ControlFlow.cpp - for_range, if_, device_assert, device_print ----------===//
//
// Loops and branches run their C++ body once, inside an scf region. Carried handles are rebound to the
// region's block arguments while the body runs, and to the op's results afterwards.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;

namespace brick {

namespace {
/// The current values of the carried handles; null (after an error) if one is unset.
std::optional<SmallVector<Value>> useCarried(KernelBuilder &kb, const Carry &carried, const char *what, Loc loc) {
  SmallVector<Value> values;
  for (auto [index, handle] : llvm::enumerate(carried.handles())) {
    Value value = Access::value(*handle);
    if (!value) {
      kb.error(loc, std::string(what) + ": carried handle " + std::to_string(index) +
                        " is unset; give it an initial value before the " + what);
      return std::nullopt;
    }
    values.push_back(value);
  }
  return values;
}

/// The values to yield from a region: the carried handles' values, which must keep their types.
SmallVector<Value> yieldCarried(KernelBuilder &kb, const Carry &carried, ArrayRef<Value> initial, const char *what,
                                Loc loc) {
  SmallVector<Value> values;
  for (auto [index, handle] : llvm::enumerate(carried.handles())) {
    Value value = Access::value(*handle);
    if (!value || kb.isPoison(value)) {
      values.push_back(initial[index]);
      continue;
    }
    if (value.getType() != initial[index].getType()) {
      kb.error(loc, std::string(what) + ": carried handle " + std::to_string(index) + " changes type from " +
                        detail::describe(initial[index].getType()) + " to " + detail::describe(value.getType()) +
                        " inside the body; a carried value keeps its type (convert with .to<T>())");
      values.push_back(initial[index]);
      continue;
    }
    values.push_back(value);
  }
  return values;
}

void bind(const Carry &carried, ValueRange values) {
  for (auto [handle, value] : llvm::zip(carried.handles(), values))
    *handle = Access::wrap(value);
}

/// Ends `block` with an scf.yield of `values`, replacing the empty one MLIR's builders may have added.
void terminate(OpBuilder &builder, Block *block, ValueRange values, Location loc) {
  if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
    block->back().erase();
  builder.setInsertionPointToEnd(block);
  scf::YieldOp::create(builder, loc, values);
}

/// An integer scalar for a loop bound; null after an error.
Value useBound(KernelBuilder &kb, const Operand &bound, Type like, const char *role, Loc loc) {
  Value value = kb.use(bound, like, "for_range", loc);
  if (!value || kb.isPoison(value))
    return value;
  Type type = value.getType();
  if (!type.isInteger() || type.isInteger(1)) {
    kb.error(loc, std::string("for_range: the ") + role + " must be an integer scalar, got " + detail::describe(type));
    return {};
  }
  return value;
}
} // namespace

void for_range(const Operand &begin, const Operand &end, const Operand &step, const Carry &carried,
               const std::function<void(Int)> &body, Loc loc) {
  KernelBuilder *current = KernelBuilder::current("for_range", loc);
  if (!current)
    return;
  KernelBuilder &kb = *current;
  Value lo = useBound(kb, begin, kb.builder().getI32Type(), "begin", loc);
  Value hi = lo ? useBound(kb, end, lo.getType(), "end", loc) : Value();
  Value st = hi ? useBound(kb, step, lo.getType(), "step", loc) : Value();
  std::optional<SmallVector<Value>> initial = useCarried(kb, carried, "for_range", loc);
  if (!lo || !hi || !st || !initial)
    return;
  // The induction variable is i32 (what Int holds); i64 bounds are an error rather than a silent truncation.
  for (Value bound : {lo, hi, st})
    if (!kb.isPoison(bound) && !bound.getType().isInteger(32)) {
      kb.error(loc, "for_range: bounds must be i32 (the loop index is an Int), got " +
                        detail::describe(bound.getType()) + "; convert with .to<i32>()");
      return;
    }
  Location l = kb.location(loc);
  OpBuilder &builder = kb.builder();
  auto loop = scf::ForOp::create(builder, l, lo, hi, st, *initial,
                                 [](OpBuilder &, Location, Value, ValueRange) {});
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(loop.getBody());
    bind(carried, loop.getRegionIterArgs());
    body(Int(Access::wrap(loop.getInductionVar())));
    SmallVector<Value> yielded = yieldCarried(kb, carried, *initial, "for_range", loc);
    terminate(builder, loop.getBody(), yielded, l);
  }
  bind(carried, loop.getResults());
}

void for_range(const Operand &begin, const Operand &end, const Operand &step, const std::function<void(Int)> &body,
               Loc loc) {
  for_range(begin, end, step, Carry(), body, loc);
}

void if_(const Operand &condition, const Carry &carried, const std::function<void()> &then,
         const std::function<void()> &otherwise, Loc loc) {
  KernelBuilder *current = KernelBuilder::current("if_", loc);
  if (!current)
    return;
  KernelBuilder &kb = *current;
  Value cond = kb.use(condition, kb.builder().getI1Type(), "if_", loc);
  std::optional<SmallVector<Value>> initial = useCarried(kb, carried, "if_", loc);
  if (!cond || !initial)
    return;
  if (isa<RankedTensorType>(cond.getType()) || isa<bir::PointerType>(cond.getType())) {
    kb.error(loc, "if_: the condition must be a scalar, got " + detail::describe(cond.getType()) +
                      " (reduce a block first, or use where())");
    return;
  }
  if (!kb.isPoison(cond) && !cond.getType().isInteger(1))
    cond = kb.convert(cond, kb.builder().getI1Type(), loc); // C semantics: nonzero is true
  Location l = kb.location(loc);
  OpBuilder &builder = kb.builder();
  SmallVector<Type> types;
  for (Value value : *initial)
    types.push_back(value.getType());
  auto ifOp = scf::IfOp::create(builder, l, types, cond, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(builder);
    auto buildBranch = [&](Block *block, const std::function<void()> &branch) {
      bind(carried, *initial);
      // Ops go before any terminator the builder added; `terminate` replaces it afterwards.
      if (!block->empty())
        builder.setInsertionPoint(&block->back());
      else
        builder.setInsertionPointToEnd(block);
      if (branch)
        branch();
      terminate(builder, block, yieldCarried(kb, carried, *initial, "if_", loc), l);
    };
    buildBranch(ifOp.thenBlock(), then);
    buildBranch(ifOp.elseBlock(), otherwise);
  }
  bind(carried, ifOp.getResults());
}

void if_(const Operand &condition, const std::function<void()> &then, Loc loc) {
  if_(condition, Carry(), then, {}, loc);
}

void device_assert(const Operand &condition, const std::string &message, Loc loc) {
  KernelBuilder *current = KernelBuilder::current("device_assert", loc);
  if (!current)
    return;
  KernelBuilder &kb = *current;
  Value cond = kb.use(condition, kb.builder().getI1Type(), "device_assert", loc);
  if (!cond || kb.isPoison(cond))
    return;
  if (isa<bir::PointerType>(getElementTypeOrSelf(cond.getType()))) {
    kb.error(loc, "device_assert: the condition must be a number or a comparison, got " +
                      detail::describe(cond.getType()));
    return;
  }
  cond = kb.convert(cond, kb.builder().getI1Type(), loc);
  bir::AssertOp::create(kb.builder(), kb.location(loc), cond, message);
}

void device_print(const std::string &prefix, const std::vector<Tensor> &values, Loc loc) {
  KernelBuilder *current = KernelBuilder::current("device_print", loc);
  if (!current)
    return;
  KernelBuilder &kb = *current;
  SmallVector<Value> args;
  for (const Tensor &handle : values) {
    Value value = kb.use(handle, "device_print", loc);
    if (!value || kb.isPoison(value))
      return;
    args.push_back(value);
  }
  bir::PrintOp::create(kb.builder(), kb.location(loc), prefix, /*hex=*/false, args);
}

} // namespace brick
