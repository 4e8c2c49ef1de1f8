//===- Memory.cpp - load, store and atomics through blocks of pointers -------===//

#include "KernelBuilder.h"
#include "brick/Dialect/Brick/Float8.h"

using namespace mlir;

namespace brick {

namespace {
bir::CacheModifier toIR(Cache cache) { return static_cast<bir::CacheModifier>(static_cast<int>(cache)); }
bir::EvictionPolicy toIR(Evict evict) { return static_cast<bir::EvictionPolicy>(static_cast<int>(evict)); }

/// The pointers of a memory op: null (after an error) unless `pointers` is a pointer or block of pointers.
Value usePointers(KernelBuilder &kb, const Tensor &pointers, const char *what, Loc loc) {
  Value value = kb.use(pointers, what, loc);
  if (!value || kb.isPoison(value))
    return {};
  if (!isa<bir::PointerType>(getElementTypeOrSelf(value.getType()))) {
    kb.error(loc, std::string(what) + " needs a pointer or a block of pointers (a Ptr<T> plus offsets), got " +
                      detail::describe(value.getType()));
    return {};
  }
  return value;
}

/// A mask for `pointers`: i1, broadcast to their shape. Null after an error (or when poison).
Value useMask(KernelBuilder &kb, const Operand &mask, Value pointers, const char *what, Loc loc) {
  Value value = kb.use(mask, kb.builder().getI1Type(), what, loc);
  if (!value || kb.isPoison(value))
    return {};
  if (!getElementTypeOrSelf(value.getType()).isInteger(1)) {
    kb.error(loc, std::string(what) + ": the mask must be i1 (a comparison such as offs < n), got " +
                      detail::describe(value.getType()));
    return {};
  }
  ArrayRef<int64_t> shape = bir::getShapeOrEmpty(pointers.getType());
  ArrayRef<int64_t> maskShape = bir::getShapeOrEmpty(value.getType());
  if (!detail::broadcastsTo(maskShape, shape)) {
    kb.error(loc, std::string(what) + ": the mask has shape " + detail::describeShape(maskShape) +
                      " but the pointers have shape " + detail::describeShape(shape) +
                      "; a mask must match the pointers or broadcast to them");
    return {};
  }
  return kb.broadcastTo(value, shape, what, loc);
}

/// A value for `pointers` (`other` of a load, the stored or combined value): converted to the element type
/// and broadcast to the pointers' shape.
Value useElements(KernelBuilder &kb, const Operand &operand, Value pointers, const char *what, const char *role,
                  Loc loc) {
  Type loaded = bir::getPointeeTypeLike(pointers.getType());
  Type element = getElementTypeOrSelf(loaded);
  Value value = kb.use(operand, element, what, loc);
  if (!value || kb.isPoison(value))
    return {};
  ArrayRef<int64_t> shape = bir::getShapeOrEmpty(pointers.getType());
  ArrayRef<int64_t> valueShape = bir::getShapeOrEmpty(value.getType());
  if (!detail::broadcastsTo(valueShape, shape)) {
    kb.error(loc, std::string(what) + ": " + role + " has shape " + detail::describeShape(valueShape) +
                      " but the pointers have shape " + detail::describeShape(shape));
    return {};
  }
  Type valueElement = getElementTypeOrSelf(value.getType());
  if (valueElement != element) {
    if (isa<bir::PointerType>(valueElement) || isa<bir::PointerType>(element)) {
      kb.error(loc, std::string(what) + ": " + role + " of type " + detail::describe(value.getType()) +
                        " does not fit elements of type " + detail::describe(element));
      return {};
    }
    value = kb.convert(value, element, loc);
  }
  return kb.broadcastTo(value, shape, what, loc);
}

Tensor loadImpl(const Tensor &pointers, const Operand *mask, const Operand *other, MemoryHints hints, Loc loc) {
  KernelBuilder *current = KernelBuilder::current("load", loc);
  if (!current)
    return {};
  KernelBuilder &kb = *current;
  Value ptr = usePointers(kb, pointers, "load", loc);
  if (!ptr)
    return kb.poison(Access::value(pointers) ? bir::getPointeeTypeLike(Access::value(pointers).getType()) : Type());
  Type loaded = bir::getPointeeTypeLike(ptr.getType());
  Value maskValue, otherValue;
  if (mask && !(maskValue = useMask(kb, *mask, ptr, "load", loc)))
    return kb.poison(loaded);
  if (other && !(otherValue = useElements(kb, *other, ptr, "load", "other", loc)))
    return kb.poison(loaded);
  return Access::wrap(bir::LoadOp::create(kb.builder(), kb.location(loc), loaded, ptr, maskValue, otherValue,
                                          toIR(hints.cache), toIR(hints.evict), hints.isVolatile));
}

void storeImpl(const Tensor &pointers, const Operand &value, const Operand *mask, MemoryHints hints, Loc loc) {
  KernelBuilder *current = KernelBuilder::current("store", loc);
  if (!current)
    return;
  KernelBuilder &kb = *current;
  Value ptr = usePointers(kb, pointers, "store", loc);
  if (!ptr)
    return;
  Value stored = useElements(kb, value, ptr, "store", "the value", loc);
  if (!stored)
    return;
  Value maskValue;
  if (mask && !(maskValue = useMask(kb, *mask, ptr, "store", loc)))
    return;
  bir::StoreOp::create(kb.builder(), kb.location(loc), ptr, stored, maskValue, toIR(hints.cache), toIR(hints.evict));
}
/// A descriptor and its block's indices (i32 scalars, one per dimension): nothing after an error.
std::optional<std::pair<Value, SmallVector<Value>>> useDescriptor(KernelBuilder &kb, const Tensor &desc,
                                                                  const std::vector<Operand> &indices,
                                                                  const char *what, Loc loc) {
  Value value = kb.use(desc, what, loc);
  if (!value || kb.isPoison(value))
    return std::nullopt;
  auto type = dyn_cast<bir::TensorDescType>(value.getType());
  if (!type) {
    kb.error(loc, std::string(what) + " needs a TensorDescriptor parameter");
    return std::nullopt;
  }
  if (indices.size() != type.getBlockShape().size()) {
    kb.error(loc, std::string(what) + ": the descriptor has " + std::to_string(type.getBlockShape().size()) +
                      " dimensions but " + std::to_string(indices.size()) + " indices were given");
    return std::nullopt;
  }
  SmallVector<Value> result;
  for (const Operand &index : indices) {
    Value i = kb.use(index, kb.builder().getI32Type(), what, loc);
    if (!i || kb.isPoison(i))
      return std::nullopt;
    if (!isa<IntegerType>(i.getType()) || i.getType().isInteger(1)) {
      kb.error(loc, std::string(what) + ": an index is an integer scalar (the block's first element along its "
                                        "dimension), got " + detail::describe(i.getType()));
      return std::nullopt;
    }
    if (!i.getType().isInteger(32))
      i = kb.convert(i, kb.builder().getI32Type(), loc);
    result.push_back(i);
  }
  return std::pair{value, result};
}
} // namespace

namespace detail {
Tensor descriptorLoad(const Tensor &desc, const std::vector<Operand> &indices, const SharedByCluster *shared,
                      Loc loc) {
  KernelBuilder *current = KernelBuilder::current("TensorDescriptor::load", loc);
  if (!current)
    return {};
  KernelBuilder &kb = *current;
  auto used = useDescriptor(kb, desc, indices, "TensorDescriptor::load", loc);
  if (!used)
    return kb.poison();
  Value when;
  if (shared) {
    when = kb.use(shared->when, kb.builder().getI1Type(), "TensorDescriptor::load", loc);
    if (!when || kb.isPoison(when))
      return kb.poison();
    if (isa<RankedTensorType>(when.getType()) || !when.getType().isInteger(1)) {
      kb.error(loc, "TensorDescriptor::load: sharedByCluster's condition is a boolean scalar, got " +
                        detail::describe(when.getType()));
      return kb.poison();
    }
  }
  auto type = cast<bir::TensorDescType>(used->first.getType());
  return Access::wrap(bir::DescriptorLoadOp::create(kb.builder(), kb.location(loc), type.getBlockType(), used->first,
                                                    used->second, when));
}

void descriptorStore(const Tensor &desc, const std::vector<Operand> &indices, const Operand &value, Loc loc) {
  KernelBuilder *current = KernelBuilder::current("TensorDescriptor::store", loc);
  if (!current)
    return;
  KernelBuilder &kb = *current;
  auto used = useDescriptor(kb, desc, indices, "TensorDescriptor::store", loc);
  if (!used)
    return;
  auto type = cast<bir::TensorDescType>(used->first.getType());
  Value stored = kb.use(value, type.getElementType(), "TensorDescriptor::store", loc);
  if (!stored || kb.isPoison(stored))
    return;
  ArrayRef<int64_t> shape = bir::getShapeOrEmpty(stored.getType());
  if (!detail::broadcastsTo(shape, type.getBlockShape())) {
    kb.error(loc, "TensorDescriptor::store: the value has shape " + detail::describeShape(shape) +
                      " but the descriptor's blocks are " + detail::describeShape(type.getBlockShape()));
    return;
  }
  Type element = getElementTypeOrSelf(stored.getType());
  if (element != type.getElementType()) {
    if (isa<bir::PointerType>(element)) {
      kb.error(loc, "TensorDescriptor::store: cannot store pointers into a tensor of " +
                        detail::describe(type.getElementType()));
      return;
    }
    stored = kb.convert(stored, type.getElementType(), loc);
  }
  stored = kb.broadcastTo(stored, type.getBlockShape(), "TensorDescriptor::store", loc);
  bir::DescriptorStoreOp::create(kb.builder(), kb.location(loc), used->first, used->second, stored);
}
} // namespace detail

Tensor load(const Tensor &pointers, Loc loc) { return loadImpl(pointers, nullptr, nullptr, {}, loc); }
Tensor load(const Tensor &pointers, const Operand &mask, Loc loc) {
  return loadImpl(pointers, &mask, nullptr, {}, loc);
}
Tensor load(const Tensor &pointers, const Operand &mask, const Operand &other, Loc loc) {
  return loadImpl(pointers, &mask, &other, {}, loc);
}
Tensor load(const Tensor &pointers, const Operand &mask, const Operand &other, MemoryHints hints, Loc loc) {
  return loadImpl(pointers, &mask, &other, hints, loc);
}

void store(const Tensor &pointers, const Operand &value, Loc loc) { storeImpl(pointers, value, nullptr, {}, loc); }
void store(const Tensor &pointers, const Operand &value, const Operand &mask, Loc loc) {
  storeImpl(pointers, value, &mask, {}, loc);
}
void store(const Tensor &pointers, const Operand &value, const Operand &mask, MemoryHints hints, Loc loc) {
  storeImpl(pointers, value, &mask, hints, loc);
}

namespace {
bir::MemSemantic toIR(MemoryOrder order) { return static_cast<bir::MemSemantic>(static_cast<int>(order)); }
bir::MemScope toIR(Scope scope) { return static_cast<bir::MemScope>(static_cast<int>(scope)); }

Tensor atomicImpl(Atomic op, const Tensor &pointers, const Operand &value, const Operand *mask,
                  AtomicOptions options, Loc loc) {
  KernelBuilder *current = KernelBuilder::current("atomic", loc);
  if (!current)
    return {};
  KernelBuilder &kb = *current;
  Value ptr = usePointers(kb, pointers, "atomic", loc);
  if (!ptr)
    return kb.poison();
  Type loaded = bir::getPointeeTypeLike(ptr.getType());
  Type element = getElementTypeOrSelf(loaded);
  bool isFloatElement = isa<FloatType>(element);
  const char *names[] = {"add", "max", "min", "and", "or", "xor", "exchange"};
  std::string what = std::string("atomic ") + names[static_cast<int>(op)];
  // A float value into integer memory would be truncated (0.5 added as 0), silently: the user converts, or not.
  Value given = Access::isLiteral(value) ? Value() : Access::value(Access::handle(value));
  bool floatValue = Access::isFloatLiteral(value) || (given && isa<FloatType>(getElementTypeOrSelf(given.getType())));
  if (floatValue && !isFloatElement)
    return kb.fail(loc, what + ": the value is floating-point but memory holds " + detail::describe(element) +
                            ", which would truncate it; convert it first (.to<" + detail::describe(element) + ">())",
                   loaded);
  // 16-bit atomics are adds only (red/atom.add.f16, .bf16); say so in the user's words.
  if (element.getIntOrFloatBitWidth() == 16 && op != Atomic::Add)
    return kb.fail(loc, what + " on " + detail::describe(element) +
                            " elements: 16-bit atomics can only add; keep the data in 32 bits to use " + names[static_cast<int>(op)],
                   loaded);
  Value operand = useElements(kb, value, ptr, "atomic", "the value", loc);
  if (!operand)
    return kb.poison(loaded);
  Value maskValue;
  if (mask && !(maskValue = useMask(kb, *mask, ptr, "atomic", loc)))
    return kb.poison(loaded);
  bir::RMWOp rmw = bir::RMWOp::add;
  switch (op) {
  case Atomic::Add: rmw = isFloatElement ? bir::RMWOp::fadd : bir::RMWOp::add; break;
  case Atomic::Max: rmw = bir::RMWOp::max; break;
  case Atomic::Min: rmw = bir::RMWOp::min; break;
  case Atomic::And: rmw = bir::RMWOp::and_; break;
  case Atomic::Or: rmw = bir::RMWOp::or_; break;
  case Atomic::Xor: rmw = bir::RMWOp::xor_; break;
  case Atomic::Exchange: rmw = bir::RMWOp::xchg; break;
  }
  if (bir::isFloat8(element)) // no 8-bit atomics to build them on
    return kb.fail(loc, "atomic " + bir::stringifyRMWOp(rmw).str() + ": 8-bit floats have no atomics; use f16, bf16 or "
                            "f32 elements", loaded);
  if (isFloatElement && (rmw == bir::RMWOp::and_ || rmw == bir::RMWOp::or_ || rmw == bir::RMWOp::xor_))
    return kb.fail(loc, "atomic " + bir::stringifyRMWOp(rmw).str() + " needs integer elements, got " +
                            detail::describe(loaded), loaded);
  return Access::wrap(bir::AtomicRMWOp::create(kb.builder(), kb.location(loc), loaded, rmw, toIR(options.order),
                                               toIR(options.scope), ptr, operand, maskValue));
}
} // namespace

Tensor atomic(Atomic op, const Tensor &pointers, const Operand &value, Loc loc) {
  return atomicImpl(op, pointers, value, nullptr, {}, loc);
}
Tensor atomic(Atomic op, const Tensor &pointers, const Operand &value, const Operand &mask, AtomicOptions options,
              Loc loc) {
  return atomicImpl(op, pointers, value, &mask, options, loc);
}
Tensor atomic_add(const Tensor &pointers, const Operand &value, Loc loc) {
  return atomicImpl(Atomic::Add, pointers, value, nullptr, {}, loc);
}
Tensor atomic_add(const Tensor &pointers, const Operand &value, const Operand &mask, Loc loc) {
  return atomicImpl(Atomic::Add, pointers, value, &mask, {}, loc);
}

Tensor atomic_cas(const Tensor &pointers, const Operand &compare, const Operand &value, AtomicOptions options,
                  Loc loc) {
  KernelBuilder *current = KernelBuilder::current("atomic_cas", loc);
  if (!current)
    return {};
  KernelBuilder &kb = *current;
  Value ptr = usePointers(kb, pointers, "atomic_cas", loc);
  if (!ptr)
    return kb.poison();
  Type loaded = bir::getPointeeTypeLike(ptr.getType());
  Value cmp = useElements(kb, compare, ptr, "atomic_cas", "the compared value", loc);
  Value val = cmp ? useElements(kb, value, ptr, "atomic_cas", "the new value", loc) : Value();
  if (!cmp || !val)
    return kb.poison(loaded);
  return Access::wrap(bir::AtomicCASOp::create(kb.builder(), kb.location(loc), loaded, toIR(options.order),
                                               toIR(options.scope), ptr, cmp, val));
}

} // namespace brick
