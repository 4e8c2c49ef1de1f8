//===- FuzzInterpreter.cpp - Random valid brick kernels on the interpreter, before and after canonicalization ---===//
//
// Any bytes become a valid brick kernel, built with the MLIR builders (never text): a 1-D or 2-D block program
// over i1, i8, i16, i32, i64, f16, bf16, f32 and f64 with program_id/num_programs, make_range, splat, broadcast,
// expand_dims, reshape, trans, gather, elementwise arith (signed and unsigned division and remainder, shifts,
// min/max, comparisons, select, every cast) and math, reductions and scans with generated combiners, dot (batched too),
// loads/stores/atomics through pointer blocks into fixed host buffers (offsets kept in range or masked), scf.for
// (signed or unsigned, carrying values and advancing pointers), scf.while (trip counts bounded), scf.if, and
// brick.print. The kernel runs on the CPU interpreter over a grid of up to 8 programs; then a clone goes through
// the brick stage of the real pipeline (lowerModule up to Stage::Brick: canonicalize, cse, brick-combine) and runs
// again on the same initial memory. Promises checked:
//   - the generated module verifies (otherwise the generator is wrong: it must stay honest), and so does the
//     lowered one;
//   - where the original runs without an interpreter error, the lowered kernel runs too, and writes the same
//     bytes into every buffer and prints the same text. Floats compare bit for bit (+0 and -0 differ), except
//     that a NaN equals a NaN of any payload or sign: nothing in LLVM's semantics fixes those of a NaN an
//     operation makes (x86 makes -NaN, APFloat's folds +NaN), so before copysign or a bitcast to an integer can
//     carry them into a number, the generator makes any NaN one fixed NaN;
//   - nothing crashes, asserts, leaks past ASan or hangs, whatever the outcome.
// An interpreter error of the original (an access outside every buffer, a gather index out of range) is a fine
// outcome; the comparison is then skipped. So is a kernel that may do something arith leaves undefined: most
// divisions, shifts and float-to-integer casts are guarded (divisor 0 becomes 1, INT_MIN / -1 becomes 0 / -1,
// shift amounts are masked to the width, out-of-range floats become 0), and an unguarded one (1 in 8, so that
// the interpreter's own answers for them are exercised too) marks the kernel as not compared, since
// canonicalization may legally change an undefined result. Two more things the generator keeps away, each a
// documented rounding difference rather than a bug: a float dot's result is only stored (brick-combine contracts
// dot(a, b, 0) + d into dot(a, b, d), one rounding instead of two, as the GPU's fma contraction does), and math
// functions that nothing rounds correctly (exp, log, sin, pow, ...) see no operand that could fold to a constant
// (MLIR folds f32 ones with the C library's float functions, the interpreter rounds the double result, the GPU
// approximates: each may differ in the last place). And no float is a signaling NaN: MLIR folds maxnumf/minnumf of
// one to NaN (APFloat's IEEE 754-2008 maxNum), where arith's documentation and the interpreter, which holds floats
// as doubles and cannot keep a NaN signaling, give the other operand.
// A broken promise calls __builtin_trap(), which libFuzzer reports like a crash. BRICK_FUZZ_DUMP=1 prints both
// modules; BRICK_FUZZ_STATS=1 counts the outcomes at exit.
//
// Input: byte 0 = grid (bits 0-1: x - 1, bit 2: y - 1) and data seed (bits 3-7); bytes 1-2 = the block dims
// (1-D length 1..64, 2-D dims 1..8 each); then the scalar arguments (an i32, an i64, an f32), each one selector
// byte and up to 8 bytes; then actions, each a byte choosing what to build and the bytes its operands ask for,
// until the bytes or the op budget run out. Past the end every byte reads as 0, which builds constants.
//
//===----------------------------------------------------------------------===//

#include "brick/Compiler/Pipeline.h"
#include "brick/Dialect/Brick/BrickDialect.h"
#include "brick/Interpreter/Interpreter.h"
#include "brick/Runtime/HostMemory.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
// As in FuzzPipeline.cpp: MLIR's bump allocator, inlined here, poisons slabs that the uninstrumented libMLIR
// then writes. Those checks are off; the rest are on.
extern "C" const char *__asan_default_options() { return "allow_user_poisoning=0"; }
#endif
#endif

using namespace mlir;
namespace bk = mlir::brick;

namespace {

[[noreturn]] void violated(const char *what, const std::string &detail = "") {
  std::fprintf(stderr, "FuzzInterpreter: invariant violated: %s%s%s\n", what, detail.empty() ? "" : ": ",
               detail.c_str());
  __builtin_trap();
}
#define CHECK(cond, ...)                                                                                              \
  do {                                                                                                                \
    if (!(cond))                                                                                                      \
      violated(#cond, ##__VA_ARGS__);                                                                                 \
  } while (0)

/// How often each outcome happened, printed at exit when BRICK_FUZZ_STATS is set (is the generator useful?).
struct Stats {
  size_t kernels = 0, originalErrors = 0, undefined = 0, compared = 0, loweredErrors = 0;
  std::map<std::string, size_t> errors; // the first words of the original's interpreter errors
  ~Stats() {
    if (!std::getenv("BRICK_FUZZ_STATS"))
      return;
    std::fprintf(stderr, "kernels %zu: original error %zu, possibly undefined %zu, compared %zu (lowered kernel "
                         "errors after an original error: %zu)\n",
                 kernels, originalErrors, undefined, compared, loweredErrors);
    for (auto &[what, count] : errors)
      std::fprintf(stderr, "  %6zu  %s\n", count, what.c_str());
  }
} stats;

/// Reads the input front to back; zeros once it runs out.
class Reader {
public:
  Reader(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() {
    if (!size_)
      return 0;
    --size_;
    return *data_++;
  }
  unsigned below(unsigned n) { return byte() % n; }
  uint64_t bytes(unsigned n) {
    uint64_t value = 0;
    for (unsigned i = 0; i < n; ++i)
      value |= uint64_t(byte()) << (8 * i);
    return value;
  }
  bool empty() const { return size_ == 0; }

private:
  const uint8_t *data_;
  size_t size_;
};

//===----------------------------------------------------------------------===//
// Element types, interesting values, the host buffers
//===----------------------------------------------------------------------===//

enum Elem : uint8_t { I1, I8, I16, I32, I64, F16, BF16, F32, F64 };
constexpr unsigned kElems = 9;
bool isFloat(Elem e) { return e >= F16; }
unsigned widthOf(Elem e) {
  static constexpr unsigned widths[] = {1, 8, 16, 32, 64, 16, 16, 32, 64};
  return widths[e];
}
/// Bytes in memory (i1 has no buffer: it is stored through i8).
unsigned bytesOf(Elem e) { return widthOf(e) / 8; }
const llvm::fltSemantics &semanticsOf(Elem e) {
  switch (e) {
  case F16: return llvm::APFloat::IEEEhalf();
  case BF16: return llvm::APFloat::BFloat();
  case F32: return llvm::APFloat::IEEEsingle();
  default: return llvm::APFloat::IEEEdouble();
  }
}

// Buffers: one data buffer per element type but i1, read and written by the kernel (its pointer argument points
// to the middle, so offsets in [-kHalf, kHalf) are in range), and one sink buffer per type, where the kernel's
// final values go: program p's sink k of a type fills elements [p * 256 + k * 64, + 64).
constexpr unsigned kBufferTypes = 8; // I8 .. F64
constexpr int64_t kHalf = 512, kBlockMax = 64, kSinksPerType = 4, kMaxPrograms = 8;
constexpr int64_t kSinkElements = kMaxPrograms * kSinksPerType * kBlockMax;
Elem bufferElem(unsigned i) { return Elem(I8 + i); }

constexpr int64_t kInts[] = {0, 1, -1, 2, -2, 3, 5, 7, 8, 15, 16, 31, 32, 63, 64, 100, 127, 128, 255, 256, 511, 512,
                             -128, -129, -512, -513, 32767, 32768, 65535, 65536, INT32_MAX, INT32_MIN, INT64_MAX,
                             INT64_MIN, int64_t(1) << 31, int64_t(1) << 32, int64_t(1) << 53, (int64_t(1) << 53) + 1};
constexpr double kReals[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 3.0, 1.5, 0.1, -2.75, 1e-3, 100.0, 1000.5,
                             65504.0, 65520.0, -65520.0, 1e10, 3.4028234663852886e38, 1e-40, 5.960464477539063e-08,
                             6.1e-05, INFINITY, -INFINITY, NAN, -NAN, 0.333333333333, 1e300, 4.9e-324, 16777217.0};

/// An integer: mostly one of kInts, else a sparse pattern (+-2^a +- 2^b +- c, where roundings tie) or raw bytes.
int64_t interestingInt(Reader &in) {
  uint8_t b = in.byte();
  if (b < 128)
    return kInts[b % std::size(kInts)];
  if (b < 208) {
    uint8_t x = in.byte(), y = in.byte();
    uint64_t v = (uint64_t(1) << (x % 64)) + ((x & 64) ? -1 : 1) * (uint64_t(1) << (y % 64)) + (y >> 6);
    return int64_t((b & 1) ? 0 - v : v);
  }
  return int64_t(in.bytes(8));
}

/// A float of `e`'s format: mostly one of kReals (rounded), else a sparse significand (1 + 2^-a +- 2^-b, scaled,
/// where double roundings go wrong) or raw bits (payloads, subnormals; a signaling NaN made quiet, see the header).
llvm::APFloat interestingFloat(Reader &in, Elem e) {
  uint8_t b = in.byte();
  bool lost;
  if (b < 112 || b >= 240) {
    llvm::APFloat value(kReals[b % std::size(kReals)]);
    value.convert(semanticsOf(e), llvm::APFloat::rmNearestTiesToEven, &lost);
    return value;
  }
  if (b < 176) {
    uint8_t x = in.byte(), y = in.byte(), s = in.byte();
    double v = 1.0 + std::ldexp(1.0, -int(x % 60)) + ((y & 128) ? -1 : 1) * std::ldexp(1.0, -int(y % 70));
    v = std::ldexp((s & 1) ? -v : v, int(s >> 1) % 48 - 24);
    llvm::APFloat value(v);
    value.convert(semanticsOf(e), llvm::APFloat::rmNearestTiesToEven, &lost);
    return value;
  }
  llvm::APFloat raw(semanticsOf(e), llvm::APInt(widthOf(e), in.bytes(bytesOf(e))));
  return raw.isSignaling() ? raw.makeQuiet() : raw;
}

/// The interpreter's memory for one input: data and sink buffers, registered (so every access is checked), filled
/// from a seed (the same seed gives the same bytes: both runs start from them).
class Memory {
public:
  Memory() {
    for (unsigned t = 0; t < kBufferTypes; ++t) {
      data_[t] = static_cast<unsigned char *>(::brick::runtime::allocateHost(dataBytes(t)));
      sinks_[t] = static_cast<unsigned char *>(::brick::runtime::allocateHost(sinkBytes(t)));
      CHECK(data_[t] && sinks_[t]);
    }
  }
  static size_t dataBytes(unsigned t) { return 2 * kHalf * bytesOf(bufferElem(t)); }
  static size_t sinkBytes(unsigned t) { return kSinkElements * bytesOf(bufferElem(t)); }
  uint64_t dataArgument(unsigned t) const { return uintptr_t(data_[t]) + kHalf * bytesOf(bufferElem(t)); }
  uint64_t sinkArgument(unsigned t) const { return uintptr_t(sinks_[t]); }

  /// Fills every buffer as seed `seed` says: data from the interesting values, sinks with a poison pattern.
  void reset(uint8_t seed) {
    const std::vector<unsigned char> &initial = initialData(seed);
    size_t at = 0;
    for (unsigned t = 0; t < kBufferTypes; ++t) {
      std::memcpy(data_[t], initial.data() + at, dataBytes(t));
      at += dataBytes(t);
      std::memset(sinks_[t], 0xA5, sinkBytes(t));
    }
  }
  /// Where this memory and `other` first differ, or "": bytes, except that two NaNs of a float type agree.
  std::string firstDifference(const Memory &other) const {
    for (unsigned t = 0; t < kBufferTypes; ++t)
      for (bool sink : {false, true}) {
        std::string found = sink ? firstDifference(bufferElem(t), sinks_[t], other.sinks_[t], sinkBytes(t))
                                 : firstDifference(bufferElem(t), data_[t], other.data_[t], dataBytes(t));
        if (!found.empty())
          return (sink ? "sink buffer " : "data buffer ") + found;
      }
    return "";
  }

private:
  static const std::vector<unsigned char> &initialData(uint8_t seed) {
    static std::map<uint8_t, std::vector<unsigned char>> cache;
    auto [found, fresh] = cache.try_emplace(seed);
    if (!fresh)
      return found->second;
    std::vector<unsigned char> &bytes = found->second;
    uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
    for (unsigned t = 0; t < kBufferTypes; ++t) {
      Elem e = bufferElem(t);
      for (int64_t i = 0; i < 2 * kHalf; ++i) {
        // Pseudo-random bytes per element, decoded like fuzz input: interesting values, sparse or raw.
        uint8_t pool[16];
        for (uint8_t &p : pool) {
          state ^= state << 13, state ^= state >> 7, state ^= state << 17;
          p = uint8_t(state >> 24);
        }
        Reader r(pool, sizeof(pool));
        uint64_t bits =
            isFloat(e) ? interestingFloat(r, e).bitcastToAPInt().getZExtValue() : uint64_t(interestingInt(r));
        unsigned char raw[8];
        std::memcpy(raw, &bits, 8); // little-endian: the low bytes are the value of a narrower type
        bytes.insert(bytes.end(), raw, raw + bytesOf(e));
      }
    }
    return bytes;
  }

  static std::string firstDifference(Elem e, const unsigned char *a, const unsigned char *b, size_t bytes) {
    if (!std::memcmp(a, b, bytes))
      return "";
    unsigned size = bytesOf(e);
    for (size_t at = 0; at < bytes; at += size) {
      uint64_t x = 0, y = 0;
      std::memcpy(&x, a + at, size);
      std::memcpy(&y, b + at, size);
      if (x == y || (isFloat(e) && llvm::APFloat(semanticsOf(e), llvm::APInt(widthOf(e), x)).isNaN() &&
                     llvm::APFloat(semanticsOf(e), llvm::APInt(widthOf(e), y)).isNaN()))
        continue;
      char text[160];
      std::snprintf(text, sizeof(text), "of element type #%u, element %zu: 0x%llx before, 0x%llx after", unsigned(e),
                    at / size, (unsigned long long)x, (unsigned long long)y);
      return text;
    }
    return "";
  }

  unsigned char *data_[kBufferTypes];
  unsigned char *sinks_[kBufferTypes];
};

/// brick.print's text with NaN signs dropped ("-nan" and "nan" are one NaN).
std::string withoutNaNSigns(std::string text) {
  for (size_t at; (at = text.find("-nan")) != std::string::npos;)
    text.erase(at, 1);
  return text;
}

//===----------------------------------------------------------------------===//
// The generator
//===----------------------------------------------------------------------===//

using Shape = llvm::SmallVector<int64_t, 2>;

constexpr const char *kIntBinary[] = {"arith.addi",  "arith.subi",  "arith.muli",  "arith.andi", "arith.ori",
                                      "arith.xori",  "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui"};
// Divisions: the divisor (and for the signed ones INT_MIN / -1) is guarded unless the kernel is marked.
constexpr const char *kIntDivision[] = {"arith.divsi", "arith.remsi", "arith.ceildivsi", "arith.floordivsi",
                                        "arith.divui", "arith.remui"};
constexpr const char *kIntShift[] = {"arith.shli", "arith.shrsi", "arith.shrui"};
constexpr const char *kFloatBinary[] = {"arith.addf",    "arith.subf",    "arith.mulf",     "arith.divf",
                                        "arith.remf",    "arith.maxnumf", "arith.minnumf",  "arith.maximumf",
                                        "arith.minimumf", "math.copysign"};
// Exact or correctly rounded everywhere.
constexpr const char *kFloatUnary[] = {"arith.negf", "math.absf",  "math.sqrt",      "math.floor",
                                       "math.ceil",  "math.round", "math.roundeven", "math.trunc"};
// Correctly rounded nowhere: their operands never fold to constants (the header says why).
constexpr const char *kFloatTranscendental[] = {"math.exp",  "math.exp2", "math.expm1", "math.log",  "math.log2",
                                                "math.log10", "math.log1p", "math.cbrt", "math.sin",  "math.cos",
                                                "math.tan",  "math.tanh", "math.atan",  "math.erf",  "math.rsqrt"};
constexpr const char *kFloatTranscendental2[] = {"math.powf", "math.atan2"};

/// Builds one kernel from the input. Values live in a pool (scoped by regions); `need` gives a value of a type,
/// reusing one from the pool or building it.
class Generator {
public:
  Generator(Reader &in, OpBuilder &builder, func::FuncOp kernel, int64_t length, int64_t rows, int64_t cols)
      : in_(in), b_(builder), loc_(builder.getUnknownLoc()), length_(length), rows_(rows), cols_(cols) {
    Block &entry = kernel.getBody().front();
    for (unsigned t = 0; t < kBufferTypes; ++t) {
      data_[t] = entry.getArgument(t);
      sinks_[t] = entry.getArgument(kBufferTypes + t);
    }
    for (unsigned i = 2 * kBufferTypes; i < entry.getNumArguments(); ++i)
      add(entry.getArgument(i));
    // The program's linear index, for the sinks.
    Value x = bk::ProgramIdOp::create(b_, loc_, b_.getI32Type(), 0u);
    Value y = bk::ProgramIdOp::create(b_, loc_, b_.getI32Type(), 1u);
    Value width = bk::NumProgramsOp::create(b_, loc_, b_.getI32Type(), 0u);
    program_ = arith::AddIOp::create(b_, loc_, x, arith::MulIOp::create(b_, loc_, y, width));
    for (Value v : {x, y, width, program_})
      add(v);
  }

  /// Builds actions until the input or the budget ends, then stores the last values (and some others).
  void run() {
    while (!in_.empty() && ops_ < kMaxOps)
      action();
    size_t count = pool_.size();
    for (size_t i = 0; i < 3 && i < count; ++i)
      sink(pool_[count - 1 - i]);
    for (int i = 0; i < 3 && count; ++i)
      sink(pool_[in_.below(count)]);
  }
  bool maybeUndefined() const { return undefined_; }

private:
  static constexpr unsigned kMaxOps = 400, kMaxDepth = 5;

  MLIRContext *context() { return b_.getContext(); }
  Type elemType(Elem e) {
    switch (e) {
    case I1: return b_.getI1Type();
    case I8: return b_.getI8Type();
    case I16: return b_.getI16Type();
    case I32: return b_.getI32Type();
    case I64: return b_.getI64Type();
    case F16: return b_.getF16Type();
    case BF16: return b_.getBF16Type();
    case F32: return b_.getF32Type();
    case F64: return b_.getF64Type();
    }
    return {};
  }
  static Type shaped(const Shape &shape, Type element) {
    return shape.empty() ? element : Type(RankedTensorType::get(shape, element));
  }
  Type typeOf(const Shape &shape, Elem e) { return shaped(shape, elemType(e)); }
  Type pointerTypeOf(const Shape &shape, Elem e) { return shaped(shape, bk::PointerType::get(elemType(e))); }
  static Shape shapeOf(Value v) { return Shape(bk::getShapeOrEmpty(v.getType())); }
  static int64_t count(const Shape &shape) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  static Elem elemOf(Type type) {
    Type e = getElementTypeOrSelf(type);
    if (e.isInteger(1)) return I1;
    if (e.isInteger(8)) return I8;
    if (e.isInteger(16)) return I16;
    if (e.isInteger(32)) return I32;
    if (e.isInteger(64)) return I64;
    if (e.isF16()) return F16;
    if (e.isBF16()) return BF16;
    if (e.isF32()) return F32;
    return F64;
  }

  void add(Value v) { pool_.push_back(v); }
  template <class Op, class... Args> Value make(Args &&...args) {
    ++ops_;
    return Op::create(b_, loc_, std::forward<Args>(args)...);
  }
  Value makeNamed(StringRef name, ValueRange operands, Type result) {
    ++ops_;
    OperationState state(loc_, name);
    state.addOperands(operands);
    state.addTypes(result);
    return b_.create(state)->getResult(0);
  }

  /// A shape for an action: a scalar, the 1-D length, the 2-D block either way round, or one of its dims.
  Shape pickShape() {
    switch (in_.below(6)) {
    case 0: return {};
    case 1: return {length_};
    case 2: return {rows_, cols_};
    case 3: return {cols_, rows_};
    case 4: return {rows_};
    default: return {cols_};
    }
  }
  Elem pickElem() { return Elem(in_.below(kElems)); }
  /// A shape, then an element type (in this order: C++ leaves the order of call arguments open).
  std::pair<Shape, Elem> pickType() {
    Shape shape = pickShape();
    return {shape, pickElem()};
  }

  //===--------------------------------------------------------------------===//
  // Leaves
  //===--------------------------------------------------------------------===//

  Attribute scalarAttr(Elem e, Reader &in) {
    Type type = elemType(e);
    if (isFloat(e))
      return FloatAttr::get(type, interestingFloat(in, e));
    return IntegerAttr::get(type, llvm::APInt(widthOf(e), uint64_t(interestingInt(in)), false, true));
  }
  Value constant(const Shape &shape, Elem e) {
    if (shape.empty())
      return make<arith::ConstantOp>(cast<TypedAttr>(scalarAttr(e, in_)));
    auto type = cast<RankedTensorType>(typeOf(shape, e));
    if (in_.byte() % 4)
      return make<arith::ConstantOp>(DenseElementsAttr::get(type, scalarAttr(e, in_)));
    // Elements of their own: interesting values drawn by a generator seeded from two input bytes.
    uint8_t seed[2] = {in_.byte(), in_.byte()};
    uint64_t state = (uint64_t(seed[0]) << 8 | seed[1]) * 0x9E3779B97F4A7C15ull + 1;
    llvm::SmallVector<Attribute> elements;
    for (int64_t i = 0; i < count(shape); ++i) {
      uint8_t bytes[12];
      for (uint8_t &p : bytes) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        p = uint8_t(state >> 24);
      }
      Reader r(bytes, sizeof(bytes));
      elements.push_back(scalarAttr(e, r));
    }
    return make<arith::ConstantOp>(DenseElementsAttr::get(type, elements));
  }

  /// Whether canonicalization might fold `v` to a constant (conservatively: anything not computed from memory,
  /// a program id or a kernel argument; a loop's or a branch's results and block arguments too; a load whose mask
  /// might fold, since all false it becomes its `other`).
  bool foldable(Value v) {
    if (auto found = foldable_.find(v); found != foldable_.end())
      return found->second;
    Operation *op = v.getDefiningOp();
    bool result;
    if (!op)
      result = !isa<func::FuncOp>(cast<BlockArgument>(v).getOwner()->getParentOp());
    else if (auto load = dyn_cast<bk::LoadOp>(op))
      result = load.getMask() && foldable(load.getMask());
    else if (isa<bk::AtomicRMWOp, bk::AtomicCASOp, bk::ProgramIdOp, bk::NumProgramsOp>(op))
      result = false;
    else
      result = op->getNumRegions() || llvm::all_of(op->getOperands(), [&](Value x) { return foldable(x); });
    foldable_[v] = result;
    return result;
  }

  //===--------------------------------------------------------------------===//
  // Values of a wanted type
  //===--------------------------------------------------------------------===//

  Value reuse(Type type) {
    llvm::SmallVector<Value> candidates;
    for (Value v : pool_)
      if (v.getType() == type)
        candidates.push_back(v);
    return candidates.empty() ? Value() : candidates[in_.below(candidates.size())];
  }

  /// A value of `shape` and `e`.
  Value need(const Shape &shape, Elem e, unsigned depth = 0) {
    uint8_t how = in_.byte();
    if (Value v = (how % 8 < 3) ? reuse(typeOf(shape, e)) : Value())
      return v;
    if (depth >= kMaxDepth || ops_ >= kMaxOps || in_.empty())
      return constant(shape, e);
    switch (how % 8) {
    case 3: return constant(shape, e);
    case 4: return converted(need(shape, pickElem(), depth + 1), e);
    case 5: return reshaped(shape, e, depth);
    case 6: return loaded(shape, e, depth);
    default: return arithmetic(shape, e, depth);
    }
  }

  /// `v` converted to element type `to` (a cast chosen among those arith has for the pair; guarded where arith
  /// leaves the result undefined).
  Value converted(Value v, Elem to) {
    Elem from = elemOf(v.getType());
    Shape shape = shapeOf(v);
    Type result = typeOf(shape, to);
    bool pick = in_.byte() & 1;
    if (from == to)
      return v;
    if (!isFloat(from) && !isFloat(to)) {
      if (widthOf(from) > widthOf(to))
        return make<arith::TruncIOp>(result, v);
      return pick ? make<arith::ExtSIOp>(result, v) : make<arith::ExtUIOp>(result, v);
    }
    bool bitcast = in_.below(4) == 0 && widthOf(from) == widthOf(to) && widthOf(from) >= 32; // i32 <-> f32, i64 <-> f64
    if (!isFloat(from))
      return bitcast ? make<arith::BitcastOp>(result, v)
             : pick  ? make<arith::SIToFPOp>(result, v)
                     : make<arith::UIToFPOp>(result, v);
    if (isFloat(from) && isFloat(to)) {
      if (widthOf(from) == widthOf(to)) // f16 <-> bf16: through f32
        return converted(converted(v, F32), to);
      if (widthOf(from) > widthOf(to))
        return make<arith::TruncFOp>(result, v);
      return make<arith::ExtFOp>(result, v);
    }
    if (bitcast)
      return make<arith::BitcastOp>(result, oneNaN(v));
    if (in_.below(8)) { // guard: outside the integer's range (and NaN) becomes 0
      unsigned n = widthOf(to);
      double lo = pick ? -std::ldexp(1.0, n - 1) - 1 : -1.0, hi = pick ? std::ldexp(1.0, n - 1) : std::ldexp(1.0, n);
      Value low = splatConstant(shape, from, lo), high = splatConstant(shape, from, hi);
      Value inside = make<arith::AndIOp>(make<arith::CmpFOp>(arith::CmpFPredicate::OGT, v, low),
                                         make<arith::CmpFOp>(arith::CmpFPredicate::OLT, v, high));
      v = make<arith::SelectOp>(inside, v, splatConstant(shape, from, 0.0));
    } else {
      undefined_ = true;
    }
    return pick ? make<arith::FPToSIOp>(result, v) : make<arith::FPToUIOp>(result, v);
  }
  Value splatConstant(const Shape &shape, Elem e, double value) {
    Type type = elemType(e);
    TypedAttr scalar = isFloat(e) ? TypedAttr(b_.getFloatAttr(type, value))
                                  : TypedAttr(IntegerAttr::get(type, llvm::APInt(widthOf(e), uint64_t(int64_t(value)),
                                                                                 false, true)));
    if (shape.empty())
      return make<arith::ConstantOp>(scalar);
    return make<arith::ConstantOp>(DenseElementsAttr::get(cast<ShapedType>(typeOf(shape, e)), scalar));
  }

  /// A value of `shape` made by a shape op from another shape.
  Value reshaped(const Shape &shape, Elem e, unsigned depth) {
    uint8_t how = in_.byte();
    if (shape.empty()) { // a reduction, or a scalar argument/program id cast
      if (how & 1)
        return reduce({length_}, e, 0, depth);
      Value index = reuse(b_.getI32Type());
      return converted(index ? index : need({}, I32, depth + 1), e);
    }
    switch (how % 5) {
    case 0: return make<bk::SplatOp>(typeOf(shape, e), need({}, e, depth + 1));
    case 1: { // broadcast from a shape with some dims 1
      Shape from = shape;
      for (int64_t &d : from)
        if (in_.byte() & 1)
          d = 1;
      if (from == shape)
        from.back() = 1;
      return make<bk::BroadcastOp>(typeOf(shape, e), need(from, e, depth + 1));
    }
    case 2: { // expand_dims of a lower rank, where a dim is 1
      for (size_t axis = 0; axis < shape.size(); ++axis)
        if (shape[axis] == 1) {
          Shape from = shape;
          from.erase(from.begin() + axis);
          if (from.empty())
            return make<bk::SplatOp>(typeOf(shape, e), need({}, e, depth + 1));
          return make<bk::ExpandDimsOp>(typeOf(shape, e), need(from, e, depth + 1), unsigned(axis));
        }
      [[fallthrough]];
    }
    case 3: { // trans of the transposed shape (2-D), or reshape from another factoring
      if (shape.size() == 2 && (how & 8)) {
        Value src = need({shape[1], shape[0]}, e, depth + 1);
        return make<bk::TransOp>(typeOf(shape, e), src, b_.getDenseI32ArrayAttr({1, 0}));
      }
      int64_t n = count(shape);
      Shape from;
      if (shape.size() == 2)
        from = {n};
      else {
        int64_t first = int64_t(1) << in_.below(llvm::Log2_64(n) + 1);
        from = {first, n / first};
      }
      return make<bk::ReshapeOp>(typeOf(shape, e), need(from, e, depth + 1));
    }
    default: { // a reduction of one more dim (along the new axis), or a gather
      if (shape.size() == 2 || (how & 8))
        return gather(shape, e, depth);
      unsigned axis = in_.below(2);
      Shape from = shape;
      from.insert(from.begin() + axis, axis ? cols_ : rows_);
      return reduce(from, e, axis, depth);
    }
    }
  }

  /// An elementwise op giving `shape` x `e`.
  Value arithmetic(const Shape &shape, Elem e, unsigned depth) {
    Type type = typeOf(shape, e);
    uint8_t how = in_.byte();
    if (e == I1 && how % 4 == 0) { // a comparison
      Elem of = pickElem();
      Value a = need(shape, of, depth + 1), b = need(shape, of, depth + 1);
      if (isFloat(of))
        return make<arith::CmpFOp>(arith::CmpFPredicate(in_.below(16)), a, b);
      return make<arith::CmpIOp>(arith::CmpIPredicate(in_.below(10)), a, b);
    }
    if (how % 4 == 1) { // select, on a condition of the shape or a scalar one
      Value c = need((how & 16) ? Shape{} : shape, I1, depth + 1);
      Value a = need(shape, e, depth + 1), b = need(shape, e, depth + 1);
      return make<arith::SelectOp>(c, a, b);
    }
    if (!isFloat(e)) {
      switch (in_.below(8)) {
      case 0: return make<math::AbsIOp>(need(shape, e, depth + 1));
      case 1: return division(shape, e, depth);
      case 2: {
        Value a = need(shape, e, depth + 1), n = need(shape, e, depth + 1);
        if (in_.below(8))
          n = make<arith::AndIOp>(n, splatConstant(shape, e, double(widthOf(e) - 1)));
        else
          undefined_ = true;
        return makeNamed(kIntShift[in_.below(std::size(kIntShift))], {a, n}, type);
      }
      case 3: // an i32 block from make_range
        if (e == I32 && shape.size() == 1) {
          int64_t start = int64_t(int8_t(in_.byte()));
          return make<bk::MakeRangeOp>(type, uint32_t(int32_t(start)), uint32_t(int32_t(start + shape[0])));
        }
        [[fallthrough]];
      default: {
        Value a = need(shape, e, depth + 1), b = need(shape, e, depth + 1);
        return makeNamed(kIntBinary[in_.below(std::size(kIntBinary))], {a, b}, type);
      }
      }
    }
    switch (in_.below(8)) {
    case 0: return makeNamed(kFloatUnary[in_.below(std::size(kFloatUnary))], {need(shape, e, depth + 1)}, type);
    case 1: {
      Value a = opaque(need(shape, e, depth + 1));
      return makeNamed(kFloatTranscendental[in_.below(std::size(kFloatTranscendental))], {a}, type);
    }
    case 2: {
      Value a = opaque(need(shape, e, depth + 1)), b = need(shape, e, depth + 1);
      return makeNamed(kFloatTranscendental2[in_.below(2)], {a, b}, type);
    }
    case 3: {
      Value a = need(shape, e, depth + 1), b = need(shape, e, depth + 1), c = need(shape, e, depth + 1);
      return make<math::FmaOp>(a, b, c);
    }
    default: {
      Value a = need(shape, e, depth + 1), b = need(shape, e, depth + 1);
      return floatBinary(kFloatBinary[in_.below(std::size(kFloatBinary))], a, b);
    }
    }
  }

  /// A binary float op; copysign takes its sign from a NaN made one fixed NaN (see the header).
  Value floatBinary(StringRef name, Value a, Value b) {
    return makeNamed(name, {a, name == "math.copysign" ? oneNaN(b) : b}, a.getType());
  }
  /// `v` with any NaN replaced by one fixed NaN: nothing fixes the sign or payload of a NaN an operation makes
  /// (LLVM's semantics; x86 makes -NaN, APFloat +NaN), so where they would reach a number they are made one.
  Value oneNaN(Value v) {
    Shape shape = shapeOf(v);
    Value isNaN = make<arith::CmpFOp>(arith::CmpFPredicate::UNO, v, v);
    return make<arith::SelectOp>(isNaN, splatConstant(shape, elemOf(v.getType()), NAN), v);
  }

  /// `v`, or where it could fold to a constant, a value of its type loaded without a mask (see the header).
  Value opaque(Value v) {
    if (!foldable(v))
      return v;
    Value pointer = pointers(shapeOf(v), elemOf(v.getType()), kMaxDepth, /*allowMask=*/false).first;
    return make<bk::LoadOp>(pointer, Value(), Value(), bk::CacheModifierAttr(), bk::EvictionPolicyAttr(), UnitAttr());
  }

  Value division(const Shape &shape, Elem e, unsigned depth) {
    Type type = typeOf(shape, e);
    unsigned which = in_.below(std::size(kIntDivision));
    bool isSigned = which < 4;
    Value a = need(shape, e, depth + 1), d = need(shape, e, depth + 1);
    if (in_.below(8)) { // divisor 0 -> 1; INT_MIN / -1 -> 0 / -1
      Value zero = splatConstant(shape, e, 0.0), one = splatConstant(shape, e, 1.0);
      d = make<arith::SelectOp>(make<arith::CmpIOp>(arith::CmpIPredicate::eq, d, zero), one, d);
      if (isSigned) {
        Value minusOne = splatConstant(shape, e, -1.0);
        Value intMin = make<arith::ConstantOp>(
            shape.empty() ? TypedAttr(IntegerAttr::get(elemType(e), llvm::APInt::getSignedMinValue(widthOf(e))))
                          : TypedAttr(DenseElementsAttr::get(cast<ShapedType>(type),
                                                             llvm::APInt::getSignedMinValue(widthOf(e)))));
        Value overflow = make<arith::AndIOp>(make<arith::CmpIOp>(arith::CmpIPredicate::eq, a, intMin),
                                             make<arith::CmpIOp>(arith::CmpIPredicate::eq, d, minusOne));
        a = make<arith::SelectOp>(overflow, zero, a);
      }
    } else {
      undefined_ = true;
    }
    return makeNamed(kIntDivision[which], {a, d}, type);
  }

  //===--------------------------------------------------------------------===//
  // Memory
  //===--------------------------------------------------------------------===//

  /// Pointers of `shape` into the data buffer of `e` and, when some may be out of range, the mask of those
  /// that are not.
  std::pair<Value, Value> pointers(const Shape &shape, Elem e, unsigned depth, bool allowMask = true) {
    Type type = pointerTypeOf(shape, e);
    unsigned buffer = e - I8;
    uint8_t how = in_.byte();
    if (how % 8 == 0)
      if (Value reused = reuse(type)) // in range (those a loop advanced may have left: an interpreter error)
        return {reused, Value()};
    auto base = [&]() -> Value {
      return shape.empty() ? data_[buffer] : make<bk::SplatOp>(type, data_[buffer]);
    };
    Elem offsetElem = Elem(I1 + in_.below(5));
    Value offset = need(shape, offsetElem, depth + 1);
    Value pointer, mask;
    switch (allowMask ? how % 4 : how % 2) {
    case 0: // in range: i1/i8 offsets are; wider ones are masked (bits) or taken modulo kHalf
      if (widthOf(offsetElem) > 8)
        offset = (how & 16) ? make<arith::AndIOp>(offset, splatConstant(shape, offsetElem, kHalf - 1))
                            : make<arith::RemSIOp>(offset, splatConstant(shape, offsetElem, kHalf));
      pointer = make<bk::AddPtrOp>(type, base(), offset);
      break;
    case 1: { // two steps of at most 255 (brick canonicalization combines them)
      Value second = need(shape, Elem(I1 + in_.below(2)), depth + 1);
      if (widthOf(offsetElem) > 8)
        offset = make<arith::AndIOp>(offset, splatConstant(shape, offsetElem, 255));
      pointer = make<bk::AddPtrOp>(type, make<bk::AddPtrOp>(type, base(), offset), second);
      break;
    }
    default: { // any offset, masked to the range
      pointer = make<bk::AddPtrOp>(type, base(), offset);
      if (widthOf(offsetElem) > 8)
        mask = make<arith::AndIOp>(
            make<arith::CmpIOp>(arith::CmpIPredicate::sge, offset, splatConstant(shape, offsetElem, -kHalf)),
            make<arith::CmpIOp>(arith::CmpIPredicate::slt, offset, splatConstant(shape, offsetElem, kHalf)));
      break;
    }
    }
    if (!mask)
      add(pointer);
    return {pointer, mask};
  }

  /// The mask for an access: the range mask, maybe narrowed by a random one, or none.
  Value accessMask(const Shape &shape, Value rangeMask, unsigned depth) {
    uint8_t how = in_.byte();
    if (how % 4 == 0)
      return rangeMask;
    Value random = need(shape, I1, depth + 1);
    return rangeMask ? make<arith::AndIOp>(rangeMask, random) : random;
  }

  Value loaded(const Shape &shape, Elem e, unsigned depth) {
    if (e == I1) // no i1 buffer: an i8 compared with zero
      return make<arith::CmpIOp>(arith::CmpIPredicate::ne, loaded(shape, I8, depth),
                                 splatConstant(shape, I8, 0.0));
    auto [pointer, rangeMask] = pointers(shape, e, depth);
    Value mask = accessMask(shape, rangeMask, depth);
    uint8_t how = mask ? in_.byte() : 0;
    Value other = (how & 1) ? need(shape, e, depth + 1) : Value();
    // Cache hints change nothing here; a volatile load (1 in 16) must be neither removed nor merged.
    auto cache = bk::CacheModifierAttr::get(context(), bk::CacheModifier((how >> 1) & 7));
    auto evict = bk::EvictionPolicyAttr::get(context(), bk::EvictionPolicy(((how >> 4) & 3) % 3));
    return make<bk::LoadOp>(pointer, mask, other, cache, evict, (how >> 6) == 3 ? b_.getUnitAttr() : UnitAttr());
  }

  void store(const Shape &shape, Elem e) {
    if (e == I1)
      e = I8;
    auto [pointer, rangeMask] = pointers(shape, e, 0);
    Value mask = accessMask(shape, rangeMask, 0);
    Value value = need(shape, e);
    ++ops_;
    bk::StoreOp::create(b_, loc_, pointer, value, mask, bk::CacheModifierAttr());
  }

  void atomic(const Shape &shape) {
    using bk::RMWOp;
    static constexpr Elem kinds[] = {I32, I64, F32, F64, F16, BF16, I16};
    Elem e = kinds[in_.below(std::size(kinds))];
    auto semantic = bk::MemSemantic(in_.below(4));
    auto scope = bk::MemScope(in_.below(3));
    if (e == I16 || (in_.byte() & 3) == 0) { // compare-and-swap: no mask, so pointers in range only
      if (e == I16 && in_.byte() & 1)
        e = I32;
      auto [pointer, rangeMask] = pointers(shape, e, 0, /*allowMask=*/false);
      Value compare = need(shape, e), value = need(shape, e);
      ++ops_;
      auto cas = bk::AtomicCASOp::create(b_, loc_, semantic, scope, pointer, compare, value);
      if (!shape.empty()) // a scalar atomic's old value may not be used (the verifier refuses it)
        add(cas);
      return;
    }
    RMWOp rmw;
    if (e == F16 || e == BF16)
      rmw = RMWOp::fadd;
    else if (isFloat(e)) {
      // Floats have no max or min atomic on the GPU (the verifier refuses them).
      static constexpr RMWOp ops[] = {RMWOp::fadd, RMWOp::xchg, RMWOp::fadd, RMWOp::xchg};
      rmw = ops[in_.below(4)];
    } else {
      static constexpr RMWOp ops[] = {RMWOp::and_, RMWOp::or_, RMWOp::xor_, RMWOp::add, RMWOp::max,
                                      RMWOp::min,  RMWOp::umax, RMWOp::umin, RMWOp::xchg};
      rmw = ops[in_.below(std::size(ops))];
    }
    auto [pointer, rangeMask] = pointers(shape, e, 0);
    Value mask = accessMask(shape, rangeMask, 0);
    Value value = need(shape, e);
    ++ops_;
    auto atomic = bk::AtomicRMWOp::create(b_, loc_, rmw, semantic, scope, pointer, value, mask);
    if (!shape.empty()) // a scalar atomic's old value may not be used (the verifier refuses it)
      add(atomic);
  }

  /// Stores `v` into the next sink of its type (i1 through i8; pointers, and blocks larger than a sink, are not).
  void sink(Value v) {
    Shape shape = shapeOf(v);
    if (isa<bk::PointerType>(getElementTypeOrSelf(v.getType())) || count(shape) > kBlockMax)
      return;
    Elem e = elemOf(v.getType());
    if (e == I1) {
      v = make<arith::ExtUIOp>(typeOf(shape, I8), v);
      e = I8;
    }
    if (shape.size() > 2) { // a batched dot's operands (and what reductions and scans of them make): 1-D
      shape = {count(shape)};
      v = make<bk::ReshapeOp>(typeOf(shape, e), v);
    }
    unsigned buffer = e - I8;
    if (sinksUsed_[buffer] >= kSinksPerType)
      return;
    int64_t slot = sinksUsed_[buffer]++;
    Value offset = make<arith::AddIOp>(make<arith::MulIOp>(program_, splatConstant({}, I32, kSinksPerType * kBlockMax)),
                                       splatConstant({}, I32, slot * kBlockMax));
    Type type = pointerTypeOf(shape, e);
    Value pointer;
    if (shape.empty()) {
      pointer = make<bk::AddPtrOp>(type, sinks_[buffer], offset);
    } else {
      Value index = make<arith::AddIOp>(make<bk::SplatOp>(typeOf(shape, I32), offset), rowMajorIndex(shape));
      pointer = make<bk::AddPtrOp>(type, make<bk::SplatOp>(type, sinks_[buffer]), index);
    }
    ++ops_;
    bk::StoreOp::create(b_, loc_, pointer, v, Value(), bk::CacheModifierAttr());
  }
  /// The row-major index of each element of a block of `shape` (1-D or 2-D).
  Value rowMajorIndex(const Shape &shape) {
    auto range = [&](int64_t n) { return make<bk::MakeRangeOp>(typeOf({n}, I32), 0u, uint32_t(n)); };
    if (shape.size() == 1)
      return range(shape[0]);
    Type type = typeOf(shape, I32);
    Value rows = make<bk::BroadcastOp>(type, make<bk::ExpandDimsOp>(typeOf({shape[0], 1}, I32), range(shape[0]), 1u));
    Value cols = make<bk::BroadcastOp>(type, make<bk::ExpandDimsOp>(typeOf({1, shape[1]}, I32), range(shape[1]), 0u));
    return make<arith::AddIOp>(make<arith::MulIOp>(rows, splatConstant(shape, I32, double(shape[1]))), cols);
  }

  //===--------------------------------------------------------------------===//
  // Reductions, scans, gather, dot
  //===--------------------------------------------------------------------===//

  /// Fills a combiner block over 2n scalars (accumulated, then new) of `elems`, yielding n with `Return`: a
  /// classic op for one operand, an arg-max/arg-min for two, or a generated expression.
  template <class Return> void combiner(Region &region, llvm::ArrayRef<Elem> elems) {
    OpBuilder::InsertionGuard guard(b_);
    llvm::SmallVector<Type> types;
    for (int i = 0; i < 2; ++i)
      for (Elem e : elems)
        types.push_back(elemType(e));
    Block *body = b_.createBlock(&region, {}, types, llvm::SmallVector<Location>(types.size(), loc_));
    size_t n = elems.size();
    llvm::SmallVector<Value> results;
    uint8_t how = in_.byte();
    if (n == 2 && how % 2 == 0) { // arg-max/arg-min: keep the (value, index) whose value compares so
      Value a = body->getArgument(0), b = body->getArgument(2);
      Value take = isFloat(elems[0]) ? make<arith::CmpFOp>(arith::CmpFPredicate(in_.below(16)), b, a)
                                     : make<arith::CmpIOp>(arith::CmpIPredicate(in_.below(10)), b, a);
      results.push_back(make<arith::SelectOp>(take, b, a));
      results.push_back(make<arith::SelectOp>(take, body->getArgument(3), body->getArgument(1)));
    } else {
      for (size_t k = 0; k < n; ++k) {
        Value a = body->getArgument(k), b = body->getArgument(n + k);
        if (how & 4) { // any other argument of the type may stand in
          for (size_t j = 0; j < 2 * n; ++j)
            if (body->getArgument(j).getType() == a.getType() && (in_.byte() & 3) == 0)
              b = body->getArgument(j);
        }
        results.push_back(isFloat(elems[k]) ? floatBinary(kFloatBinary[in_.below(std::size(kFloatBinary))], a, b)
                                            : makeNamed(kIntBinary[in_.below(std::size(kIntBinary))], {a, b},
                                                        a.getType()));
      }
    }
    ++ops_;
    Return::create(b_, loc_, results);
  }

  /// Reduces `from` along `axis` to a value of element type `e` (one or two operands; the second an index or
  /// another value).
  Value reduce(const Shape &from, Elem e, unsigned axis, unsigned depth) {
    llvm::SmallVector<Value> srcs = {need(from, e, depth + 1)};
    llvm::SmallVector<Elem> elems = {e};
    if (in_.byte() & 1) {
      Elem second = (in_.byte() & 1) ? I32 : pickElem();
      srcs.push_back(need(from, second, depth + 1));
      elems.push_back(second);
    }
    Shape result = from;
    result.erase(result.begin() + axis);
    llvm::SmallVector<Type> types;
    for (Elem x : elems)
      types.push_back(typeOf(result, x));
    ++ops_;
    auto op = bk::ReduceOp::create(b_, loc_, types, srcs, axis);
    combiner<bk::ReduceReturnOp>(op.getCombiner(), elems);
    for (Value r : op.getResults().drop_front())
      add(r);
    return op.getResult(0);
  }

  Value scan(const Shape &shape, Elem e) {
    llvm::SmallVector<Value> srcs = {need(shape, e)};
    llvm::SmallVector<Elem> elems = {e};
    if (in_.byte() & 1) {
      Elem second = (in_.byte() & 1) ? I32 : pickElem();
      srcs.push_back(need(shape, second));
      elems.push_back(second);
    }
    llvm::SmallVector<Type> types;
    for (Value v : srcs)
      types.push_back(v.getType());
    ++ops_;
    unsigned axis = in_.below(shape.size());
    bool reverse = in_.byte() & 1;
    auto op = bk::ScanOp::create(b_, loc_, types, srcs, axis, reverse);
    combiner<bk::ScanReturnOp>(op.getCombiner(), elems);
    for (Value r : op.getResults())
      add(r);
    return op.getResult(0);
  }

  /// A 2-D (or 1-D) gather whose indices are masked into range (unless the kernel is marked).
  Value gather(const Shape &shape, Elem e, unsigned depth) {
    unsigned axis = in_.below(shape.size());
    Shape source = shape;
    source[axis] = (in_.byte() & 1) ? rows_ : cols_;
    Elem indexElem = Elem(I8 + in_.below(4));
    Value indices = need(shape, indexElem, depth + 1);
    if (in_.below(8)) // else an index may be out of range: an interpreter error
      indices = make<arith::AndIOp>(indices, splatConstant(shape, indexElem, double(source[axis] - 1)));
    return make<bk::GatherOp>(typeOf(shape, e), need(source, e, depth + 1), indices, axis);
  }

  /// a [m, k] x b [k, n] + c: a float result only goes to a sink (brick-combine would contract an addition).
  /// Or, 1 in 2 where the product fits a sink twice, two of them batched ([2, m, k] x [2, k, n]), reshaped to 2-D.
  void dot() {
    static constexpr Elem inputs[] = {F16, BF16, F32, I8};
    uint8_t which = in_.byte();
    Elem in = inputs[which % 4];
    Elem acc = in == I8 ? I32 : (in == F16 && (in_.byte() & 1)) ? F16 : F32;
    int64_t m = (in_.byte() & 1) ? rows_ : cols_, k = (in_.byte() & 1) ? rows_ : cols_,
            n = (in_.byte() & 1) ? rows_ : cols_;
    Shape batch = (which & 4) && m * n <= kBlockMax / 2 ? Shape{2} : Shape{};
    auto shape = [&](int64_t rows, int64_t cols) {
      Shape s = batch;
      s.append({rows, cols});
      return s;
    };
    Value a = need(shape(m, k), in), b = need(shape(k, n), in), c = need(shape(m, n), acc);
    auto precision = in == F32 ? bk::InputPrecision(in_.below(3)) : bk::InputPrecision::ieee;
    Value d = make<bk::DotOp>(typeOf(shape(m, n), acc), a, b, c, Value(), precision, 0u);
    if (!batch.empty())
      d = make<bk::ReshapeOp>(typeOf({2 * m, n}, acc), d);
    if (isFloat(acc))
      sink(d);
    else
      add(d);
  }

  //===--------------------------------------------------------------------===//
  // Control flow
  //===--------------------------------------------------------------------===//

  /// Builds actions into `block` (before its terminator, if any), in a scope of its own.
  template <class F> void inScope(Block *block, F &&build) {
    OpBuilder::InsertionGuard guard(b_);
    if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
      b_.setInsertionPoint(&block->back());
    else
      b_.setInsertionPointToEnd(block);
    size_t saved = pool_.size();
    ++nesting_;
    build();
    --nesting_;
    pool_.resize(saved);
  }
  void actions(unsigned count) {
    for (unsigned i = 0; i < count && ops_ < kMaxOps; ++i)
      action();
  }

  /// scf.for with at most 4 trips (bounds constant or computed), carrying 0 to 2 values. 1 in 8 compares its bounds
  /// unsigned (a negative lower bound then runs no trip); neither way can a bound wrap into billions of trips.
  void loop() {
    uint8_t kind = in_.byte();
    Elem e = (kind & 1) ? I64 : I32;
    bool unsignedCmp = (kind & 14) == 0;
    int64_t lower = int64_t(in_.below(7)) - 3, step = 1 + in_.below(3);
    Value lb = splatConstant({}, e, double(lower)), stepValue = splatConstant({}, e, double(step));
    Value ub;
    if (in_.byte() & 1) {
      int64_t upper = lower + int64_t(in_.below(6)) - 1;
      ub = splatConstant({}, e, double(unsignedCmp && lower >= 0 ? std::max(upper, lower) : upper));
    } else {
      ub = make<arith::AddIOp>(lb, make<arith::AndIOp>(need({}, e), splatConstant({}, e, 3.0)));
    }
    llvm::SmallVector<Value> inits;
    for (unsigned i = 0, n = in_.below(3); i < n; ++i) {
      auto [shape, e] = pickType();
      inits.push_back(need(shape, e));
    }
    if (kind & 16) { // pointers that each trip advances, as a K loop's do
      Shape shape = pickShape();
      inits.push_back(pointers(shape, Elem(I8 + in_.below(kBufferTypes)), 0, /*allowMask=*/false).first);
    }
    ++ops_;
    auto loop = scf::ForOp::create(b_, loc_, lb, ub, stepValue, inits, nullptr, unsignedCmp);
    inScope(loop.getBody(), [&] {
      add(loop.getInductionVar());
      for (Value arg : loop.getRegionIterArgs())
        add(arg);
      actions(1 + in_.below(4));
      llvm::SmallVector<Value> yields;
      for (Value arg : loop.getRegionIterArgs()) {
        if (!isa<bk::PointerType>(getElementTypeOrSelf(arg.getType()))) {
          yields.push_back(need(shapeOf(arg), elemOf(arg.getType())));
          continue;
        }
        Shape shape = shapeOf(arg); // a step of -7..7 elements (a few trips may leave the buffer: an error)
        Value step = make<arith::RemSIOp>(need(shape, I8), splatConstant(shape, I8, 8.0));
        yields.push_back(make<bk::AddPtrOp>(arg.getType(), arg, step));
      }
      if (!yields.empty())
        scf::YieldOp::create(b_, loc_, yields);
    });
    for (Value r : loop.getResults())
      add(r);
  }

  /// scf.while counting up to a limit of at most 4 (the condition may and in a generated i1), carrying 0 to 2 more
  /// values; either region may do anything else.
  void whileLoop() {
    Value limit = splatConstant({}, I32, double(in_.below(5)));
    llvm::SmallVector<Value> inits = {splatConstant({}, I32, 0.0)};
    for (unsigned i = 0, n = in_.below(3); i < n; ++i) {
      auto [shape, e] = pickType();
      inits.push_back(need(shape, e));
    }
    llvm::SmallVector<Type> types(ValueRange(inits).getTypes());
    llvm::SmallVector<Location> locations(types.size(), loc_);
    ++ops_;
    auto loop = scf::WhileOp::create(b_, loc_, types, inits);
    Block *before = new Block(), *after = new Block();
    loop.getBefore().push_back(before);
    loop.getAfter().push_back(after);
    before->addArguments(types, locations);
    after->addArguments(types, locations);
    // Each region forwards or yields the counter it got (plus one, after the condition), and new values for the rest.
    auto carried = [&](Block *block, Value counter) {
      llvm::SmallVector<Value> values = {counter};
      for (size_t i = 1; i < types.size(); ++i)
        values.push_back(need(shapeOf(block->getArgument(i)), elemOf(types[i])));
      return values;
    };
    inScope(before, [&] {
      for (Value arg : before->getArguments())
        add(arg);
      actions(in_.below(3));
      Value condition = make<arith::CmpIOp>(arith::CmpIPredicate::slt, before->getArgument(0), limit);
      if (in_.byte() & 1)
        condition = make<arith::AndIOp>(condition, need({}, I1));
      scf::ConditionOp::create(b_, loc_, condition, carried(before, before->getArgument(0)));
    });
    inScope(after, [&] {
      for (Value arg : after->getArguments())
        add(arg);
      actions(in_.below(3));
      Value next = make<arith::AddIOp>(after->getArgument(0), splatConstant({}, I32, 1.0));
      scf::YieldOp::create(b_, loc_, carried(after, next));
    });
    for (Value r : loop.getResults())
      add(r);
  }

  /// scf.if on a scalar condition, giving 0 to 2 values.
  void branch() {
    Value condition = need({}, I1);
    llvm::SmallVector<Shape> shapes;
    llvm::SmallVector<Elem> elems;
    llvm::SmallVector<Type> types;
    for (unsigned i = 0, n = in_.below(3); i < n; ++i) {
      shapes.push_back(pickShape());
      elems.push_back(pickElem());
      types.push_back(typeOf(shapes.back(), elems.back()));
    }
    ++ops_;
    auto op = scf::IfOp::create(b_, loc_, types, condition, /*withElseRegion=*/true);
    for (Region *region : {&op.getThenRegion(), &op.getElseRegion()})
      inScope(&region->front(), [&] {
        actions(in_.below(3));
        llvm::SmallVector<Value> yields;
        for (size_t i = 0; i < types.size(); ++i)
          yields.push_back(need(shapes[i], elems[i]));
        if (!types.empty())
          scf::YieldOp::create(b_, loc_, yields);
      });
    for (Value r : op.getResults())
      add(r);
  }

  void print() {
    auto [shape, e] = pickType();
    Value v = need(shape, e);
    ++ops_;
    bk::PrintOp::create(b_, loc_, b_.getStringAttr("p: "), (in_.byte() & 1) ? b_.getUnitAttr() : UnitAttr(),
                        ValueRange{v});
  }

  void action() {
    uint8_t what = in_.byte();
    switch (what % 16) {
    case 0: case 1: case 2: case 3: case 4: {
      auto [shape, e] = pickType();
      add(arithmetic(shape, e, 0));
      break;
    }
    case 5: {
      auto [shape, e] = pickType();
      add(need(shape, e));
      break;
    }
    case 6: case 7: {
      auto [shape, e] = pickType();
      store(shape, e);
      break;
    }
    case 8: atomic(pickShape()); break;
    case 9: {
      Shape from = (what & 16) ? Shape{length_} : Shape{rows_, cols_};
      Elem e = pickElem();
      add(reduce(from, e, in_.below(from.size()), 0));
      break;
    }
    case 10: {
      Shape shape = (what & 16) ? Shape{length_} : Shape{rows_, cols_};
      add(scan(shape, pickElem()));
      break;
    }
    case 11: add(gather((what & 16) ? Shape{length_} : Shape{rows_, cols_}, pickElem(), 0)); break;
    case 12: dot(); break;
    case 13: if (nesting_ < 2) loop(); break;
    case 14:
      if (nesting_ < 2 && (what & 32))
        whileLoop();
      else if (nesting_ < 2)
        branch();
      break;
    default:
      if (what & 16) {
        print();
      } else {
        auto [shape, e] = pickType();
        add(reshaped(shape, e, 0));
      }
      break;
    }
  }

  Reader &in_;
  OpBuilder &b_;
  Location loc_;
  const int64_t length_, rows_, cols_;
  Value data_[kBufferTypes], sinks_[kBufferTypes], program_;
  std::vector<Value> pool_;
  llvm::DenseMap<Value, bool> foldable_;
  unsigned ops_ = 0, nesting_ = 0, sinksUsed_[kBufferTypes] = {};
  bool undefined_ = false;
};

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

struct Outcome {
  std::string error; // empty: the kernel ran
  std::string printed;
};

Outcome execute(func::FuncOp kernel, Memory &memory, uint8_t seed, std::array<unsigned, 3> grid,
                llvm::ArrayRef<::brick::interpreter::Argument> scalars) {
  memory.reset(seed);
  std::vector<::brick::interpreter::Argument> args;
  for (unsigned t = 0; t < kBufferTypes; ++t)
    args.push_back(::brick::interpreter::Argument::address(memory.dataArgument(t)));
  for (unsigned t = 0; t < kBufferTypes; ++t)
    args.push_back(::brick::interpreter::Argument::address(memory.sinkArgument(t)));
  args.insert(args.end(), scalars.begin(), scalars.end());
  Outcome outcome;
  llvm::raw_string_ostream printed(outcome.printed);
  ::brick::interpreter::Options options;
  options.checkMemory = true;
  options.printStream = &printed;
  if (llvm::Error error = ::brick::interpreter::run(kernel, grid, args, options))
    outcome.error = llvm::toString(std::move(error));
  return outcome;
}

std::string text(Operation *op) {
  std::string out;
  llvm::raw_string_ostream os(out);
  op->print(os);
  return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    ::brick::registerPipelineDialects(*r);
    return r;
  }();
  static Memory memoryBefore, memoryAfter;
  static bool dump = std::getenv("BRICK_FUZZ_DUMP");

  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  context.loadDialect<bk::BrickDialect, arith::ArithDialect, math::MathDialect, scf::SCFDialect, func::FuncDialect>();
  std::string diagnostics;
  ScopedDiagnosticHandler collect(&context, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });

  Reader in(data, size);
  uint8_t header = in.byte(), dims = in.byte();
  std::array<unsigned, 3> grid = {1u + (header & 3), 1u + ((header >> 2) & 1), 1};
  uint8_t seed = header >> 3;
  int64_t length = int64_t(1) << (dims % 7), rows = int64_t(1) << ((dims >> 3) % 4);
  int64_t cols = int64_t(1) << (in.byte() % 4);

  // The kernel: the data and sink pointers of every type, then an i32, an i64 and an f32.
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  llvm::SmallVector<Type> params;
  Type elements[kBufferTypes] = {b.getI8Type(),  b.getI16Type(), b.getI32Type(), b.getI64Type(),
                                 b.getF16Type(), b.getBF16Type(), b.getF32Type(), b.getF64Type()};
  for (int twice = 0; twice < 2; ++twice)
    for (Type e : elements)
      params.push_back(bk::PointerType::get(e));
  params.append({b.getI32Type(), b.getI64Type(), b.getF32Type()});
  auto kernel = func::FuncOp::create(b, loc, "fuzz", b.getFunctionType(params, {}));
  kernel->setAttr(bk::BrickDialect::getKernelAttrName(), b.getUnitAttr());
  b.setInsertionPointToEnd(kernel.addEntryBlock());
  llvm::SmallVector<::brick::interpreter::Argument> scalars = {
      ::brick::interpreter::Argument::integral(interestingInt(in)),
      ::brick::interpreter::Argument::integral(interestingInt(in)),
      ::brick::interpreter::Argument::floating(interestingFloat(in, F32).convertToFloat())};
  Generator generator(in, b, kernel, length, rows, cols);
  generator.run();
  func::ReturnOp::create(b, loc);

  CHECK(succeeded(verify(*module)), "the generator built an invalid module:\n" + diagnostics + text(*module));
  OwningOpRef<ModuleOp> lowered = module->clone();
  ++stats.kernels;

  if (dump)
    std::fprintf(stderr, "=== before (grid %u x %u)\n%s\n", grid[0], grid[1], text(*module).c_str());
  Outcome before = execute(kernel, memoryBefore, seed, grid, scalars);
  if (dump)
    std::fprintf(stderr, "=== before: %s\n", before.error.empty() ? "ran" : before.error.c_str());
  ::brick::CompileOptions options;
  CHECK(succeeded(::brick::lowerModule(*lowered, options, ::brick::Stage::Brick)),
        "the brick stage refused a valid kernel:\n" + diagnostics + text(*module));
  CHECK(succeeded(verify(*lowered)), "the brick stage made an invalid module:\n" + diagnostics + text(*lowered));
  if (dump)
    std::fprintf(stderr, "=== after\n%s\n", text(*lowered).c_str());
  Outcome after = execute(::brick::interpreter::findKernel(*lowered), memoryAfter, seed, grid, scalars);
  if (dump)
    std::fprintf(stderr, "=== after: %s\n", after.error.empty() ? "ran" : after.error.c_str());

  if (!before.error.empty()) {
    ++stats.originalErrors;
    size_t at = before.error.find("error: ");
    std::string what = at == std::string::npos ? before.error : before.error.substr(at + 7);
    ++stats.errors[what.substr(0, std::min(what.find_first_of("0123456789"), size_t(48)))];
    stats.loweredErrors += !after.error.empty();
    return 0;
  }
  if (generator.maybeUndefined()) {
    ++stats.undefined;
    return 0;
  }
  ++stats.compared;
  auto report = [&](const std::string &what) {
    return what + "\n=== before\n" + text(*module) + "\n=== after\n" + text(*lowered);
  };
  CHECK(after.error.empty(), report("the canonicalized kernel fails where the original ran: " + after.error));
  std::string difference = memoryBefore.firstDifference(memoryAfter);
  CHECK(difference.empty(), report("canonicalization changed what the kernel writes: " + difference));
  CHECK(withoutNaNSigns(before.printed) == withoutNaNSigns(after.printed),
        report("canonicalization changed what the kernel prints:\n" + before.printed + "--- vs\n" + after.printed));
  return 0;
}
