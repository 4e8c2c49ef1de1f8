//===- Memory.cpp - Loads, stores and atomics on host memory, every access checked ---------===//

#include "Engine.h"

#include "brick/Dialect/Brick/BrickDialect.h"
#include "brick/Runtime/HostMemory.h"
#include "brick/Support/Float8.h"
#include "brick/Support/HalfFloat.h"

#include "llvm/Support/Format.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace brick::interpreter::detail {

namespace {

/// The 8-bit float format of `element`, if it is one.
const float8::Format *float8Format(Type element) {
  if (isa<Float8E4M3FNType>(element))
    return &float8::e4m3fn;
  if (isa<Float8E5M2Type>(element))
    return &float8::e5m2;
  return nullptr;
}

template <class T> T loadAs(uintptr_t address) {
  T value;
  std::memcpy(&value, reinterpret_cast<const void *>(address), sizeof(T));
  return value;
}
template <class T> void storeAs(uintptr_t address, T value) {
  std::memcpy(reinterpret_cast<void *>(address), &value, sizeof(T));
}

double readReal(uintptr_t address, Type element) {
  if (element.isF32())
    return loadAs<float>(address);
  if (element.isF64())
    return loadAs<double>(address);
  if (element.isF16())
    return halfToFloat(loadAs<uint16_t>(address));
  if (const float8::Format *format = float8Format(element))
    return float8::decode(*format, loadAs<uint8_t>(address));
  return bf16ToFloat(loadAs<uint16_t>(address));
}
void writeReal(uintptr_t address, Type element, double value) {
  if (element.isF32())
    storeAs(address, float(value));
  else if (element.isF64())
    storeAs(address, value);
  else if (element.isF16())
    storeAs(address, floatToHalf(float(value)));
  else if (const float8::Format *format = float8Format(element))
    storeAs(address, float8::encode(*format, value));
  else
    storeAs(address, floatToBf16(float(value)));
}
int64_t readInteger(uintptr_t address, Type element) {
  switch (memoryBytes(element)) {
  case 1: return wrapInteger(loadAs<int8_t>(address), integerBits(element));
  case 2: return loadAs<int16_t>(address);
  case 4: return loadAs<int32_t>(address);
  default: return loadAs<int64_t>(address);
  }
}
void writeInteger(uintptr_t address, Type element, int64_t value) {
  switch (memoryBytes(element)) {
  case 1: storeAs(address, int8_t(value)); break;
  case 2: storeAs(address, int16_t(value)); break;
  case 4: storeAs(address, int32_t(value)); break;
  default: storeAs(address, value); break;
  }
}

/// The bytes at `address` (1 to 8), as an unsigned number.
uint64_t memoryBits(uintptr_t address, unsigned bytes) {
  uint64_t bits = 0;
  std::memcpy(&bits, reinterpret_cast<const void *>(address), bytes);
  return bits;
}
/// The bits writeReal stores for `value`.
uint64_t bitsOf(double value, Type element) {
  uint64_t bits = 0;
  if (element.isF64()) {
    std::memcpy(&bits, &value, 8);
  } else if (element.isF32()) {
    float single = float(value);
    std::memcpy(&bits, &single, 4);
  } else if (const float8::Format *format = float8Format(element)) {
    bits = float8::encode(*format, value);
  } else {
    bits = element.isF16() ? floatToHalf(float(value)) : floatToBf16(float(value));
  }
  return bits;
}

/// Checks the accesses of one op: each must be aligned and lie inside one of the interpreter's buffers.
class AccessChecker {
public:
  AccessChecker(Program &program, Operation *op, const char *verb, llvm::ArrayRef<int64_t> shape)
      : program_(program), op_(op), verb_(verb), shape_(shape) {}

  llvm::Error check(uintptr_t address, unsigned bytes, size_t index) {
    if (!program_.options.checkMemory)
      return llvm::Error::success();
    if (address < 4096) // before every host pointer's check: dereferencing it would crash the host
      return fail(address, bytes, index, "through a null pointer");
    if (address % bytes)
      return fail(address, bytes, index, "which is not aligned to " + std::to_string(bytes) + " bytes");
    if (last_ && address >= last_->begin && address + bytes <= last_->begin + last_->size)
      return llvm::Error::success();
    last_ = runtime::findHostAllocation(address);
    if (last_ && address + bytes <= last_->begin + last_->size)
      return llvm::Error::success();
    if (throughHostPointer(address))
      return llvm::Error::success();
    std::string where = "outside every buffer";
    if (auto nearest = runtime::nearestHostAllocation(address)) {
      std::string size = std::to_string(nearest->size) + "-byte buffer at " + hex(nearest->begin);
      if (address >= nearest->begin)
        where += " (" + std::to_string(address + bytes - (nearest->begin + nearest->size)) + " bytes past the end of the " +
                 size + ")";
      else
        where += " (" + std::to_string(nearest->begin - address) + " bytes before the " + size + ")";
    }
    return fail(address, bytes, index, where);
  }

private:
  /// Whether `address` (outside the interpreter's buffers) is taken as an access through a host pointer argument:
  /// the nearest such pointer at or below it lies past every buffer of the interpreter that starts below it.
  bool throughHostPointer(uintptr_t address) const {
    uintptr_t base = 0;
    for (uintptr_t host : program_.options.hostPointers)
      if (host <= address && host >= base)
        base = host;
    if (!base)
      return false;
    std::optional<runtime::HostAllocation> below = runtime::hostAllocationBelow(address);
    return !below || below->begin < base;
  }

  static std::string hex(uintptr_t address) {
    std::string text;
    llvm::raw_string_ostream(text) << llvm::format_hex(address, 2);
    return text;
  }
  llvm::Error fail(uintptr_t address, unsigned bytes, size_t index, const std::string &why) {
    std::string element = shape_.empty() ? "" : " for element " + Program::coordinates(shape_, int64_t(index));
    return program_.error(op_, op_->getName().getStringRef() + " " + verb_ + " " + std::to_string(bytes) + " bytes at " +
                                   hex(address) + element + ", " + why);
  }

  Program &program_;
  Operation *op_;
  const char *verb_;
  llvm::ArrayRef<int64_t> shape_;
  std::optional<runtime::HostAllocation> last_;
};

llvm::Error runLoad(Program &program, mlir::brick::LoadOp op) {
  const Block &pointers = program.get(op.getPtr());
  const Block *mask = op.getMask() ? &program.get(op.getMask()) : nullptr;
  const Block *other = op.getOther() ? &program.get(op.getOther()) : nullptr;
  Type element = getElementTypeOrSelf(op.getType());
  unsigned bytes = memoryBytes(element);
  bool real = isa<FloatType>(element);
  size_t n = pointers.size();
  AccessChecker checker(program, op, "reads", pointers.shape);
  // Where the mask is off and there is no `other` the GPU's value is undefined; the interpreter gives 0.
  Block result = Block::zeros(pointers.shape, n, real);
  for (size_t i = 0; i < n; ++i) {
    if (mask && !at(mask->ints, i)) {
      if (other)
        real ? (void)(result.reals[i] = at(other->reals, i)) : (void)(result.ints[i] = at(other->ints, i));
      continue;
    }
    uintptr_t address = uintptr_t(pointers.ints[i]);
    if (llvm::Error error = checker.check(address, bytes, i))
      return error;
    if (real)
      result.reals[i] = readReal(address, element);
    else
      result.ints[i] = readInteger(address, element);
  }
  program.set(op.getResult(), std::move(result));
  return llvm::Error::success();
}

llvm::Error runStore(Program &program, mlir::brick::StoreOp op) {
  const Block &pointers = program.get(op.getPtr());
  const Block &value = program.get(op.getValue());
  const Block *mask = op.getMask() ? &program.get(op.getMask()) : nullptr;
  Type element = getElementTypeOrSelf(op.getValue().getType());
  unsigned bytes = memoryBytes(element);
  AccessChecker checker(program, op, "writes", pointers.shape);
  for (size_t i = 0; i < pointers.size(); ++i) {
    if (mask && !at(mask->ints, i))
      continue;
    uintptr_t address = uintptr_t(pointers.ints[i]);
    if (llvm::Error error = checker.check(address, bytes, i))
      return error;
    if (value.isReal())
      writeReal(address, element, at(value.reals, i));
    else
      writeInteger(address, element, at(value.ints, i));
  }
  return llvm::Error::success();
}

/// Atomics: the programs run one at a time, and the elements of one op in order, so each read-modify-write is
/// whole. The result holds the old values (0 where the mask is off).
llvm::Error runAtomicRMW(Program &program, mlir::brick::AtomicRMWOp op) {
  const Block &pointers = program.get(op.getPtr());
  const Block &value = program.get(op.getVal());
  const Block *mask = op.getMask() ? &program.get(op.getMask()) : nullptr;
  Type element = getElementTypeOrSelf(op.getVal().getType());
  unsigned bytes = memoryBytes(element), bits = isa<FloatType>(element) ? 0 : integerBits(element);
  bool real = isa<FloatType>(element);
  AccessChecker checker(program, op, "updates", pointers.shape);
  size_t n = pointers.size();
  Block result = Block::zeros(pointers.shape, n, real);
  using mlir::brick::RMWOp;
  for (size_t i = 0; i < n; ++i) {
    if (mask && !at(mask->ints, i))
      continue;
    uintptr_t address = uintptr_t(pointers.ints[i]);
    if (llvm::Error error = checker.check(address, bytes, i))
      return error;
    if (real) {
      double old = readReal(address, element), v = at(value.reals, i), updated = old;
      switch (op.getRmw()) {
      case RMWOp::fadd:
      case RMWOp::add: updated = roundToFloat(old + v, element); break;
      case RMWOp::max:
      case RMWOp::umax: updated = std::fmax(old, v); break;
      case RMWOp::min:
      case RMWOp::umin: updated = std::fmin(old, v); break;
      case RMWOp::xchg: updated = v; break;
      default: return program.error(op, "a bitwise atomic on floats");
      }
      writeReal(address, element, updated);
      result.reals[i] = old;
      continue;
    }
    int64_t old = readInteger(address, element), v = at(value.ints, i), updated = old;
    switch (op.getRmw()) {
    case RMWOp::and_: updated = old & v; break;
    case RMWOp::or_: updated = old | v; break;
    case RMWOp::xor_: updated = old ^ v; break;
    case RMWOp::add:
    case RMWOp::fadd: updated = int64_t(uint64_t(old) + uint64_t(v)); break;
    case RMWOp::max: updated = asSigned(old, bits) >= asSigned(v, bits) ? old : v; break;
    case RMWOp::min: updated = asSigned(old, bits) <= asSigned(v, bits) ? old : v; break;
    case RMWOp::umax: updated = asUnsigned(old, bits) >= asUnsigned(v, bits) ? old : v; break;
    case RMWOp::umin: updated = asUnsigned(old, bits) <= asUnsigned(v, bits) ? old : v; break;
    case RMWOp::xchg: updated = v; break;
    }
    writeInteger(address, element, wrapInteger(updated, bits));
    result.ints[i] = old;
  }
  program.set(op.getResult(), std::move(result));
  return llvm::Error::success();
}

llvm::Error runAtomicCAS(Program &program, mlir::brick::AtomicCASOp op) {
  const Block &pointers = program.get(op.getPtr());
  const Block &compare = program.get(op.getCmp()), &value = program.get(op.getVal());
  Type element = getElementTypeOrSelf(op.getVal().getType());
  unsigned bytes = memoryBytes(element);
  bool real = isa<FloatType>(element);
  AccessChecker checker(program, op, "updates", pointers.shape);
  size_t n = pointers.size();
  Block result = Block::zeros(pointers.shape, n, real);
  for (size_t i = 0; i < n; ++i) {
    uintptr_t address = uintptr_t(pointers.ints[i]);
    if (llvm::Error error = checker.check(address, bytes, i))
      return error;
    if (real) {
      // atom.cas compares bits: -0 is not +0, and a NaN matches the same NaN.
      double old = readReal(address, element);
      if (memoryBits(address, bytes) == bitsOf(at(compare.reals, i), element))
        writeReal(address, element, at(value.reals, i));
      result.reals[i] = old;
    } else {
      int64_t old = readInteger(address, element);
      if (old == at(compare.ints, i))
        writeInteger(address, element, at(value.ints, i));
      result.ints[i] = old;
    }
  }
  program.set(op.getResult(), std::move(result));
  return llvm::Error::success();
}

} // namespace

std::optional<llvm::Error> runMemory(Program &program, Operation *op) {
  if (auto load = dyn_cast<mlir::brick::LoadOp>(op))
    return runLoad(program, load);
  if (auto store = dyn_cast<mlir::brick::StoreOp>(op))
    return runStore(program, store);
  if (auto rmw = dyn_cast<mlir::brick::AtomicRMWOp>(op))
    return runAtomicRMW(program, rmw);
  if (auto cas = dyn_cast<mlir::brick::AtomicCASOp>(op))
    return runAtomicCAS(program, cas);
  return std::nullopt;
}

} // namespace brick::interpreter::detail
