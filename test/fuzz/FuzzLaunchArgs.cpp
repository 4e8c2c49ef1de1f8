//===- FuzzLaunchArgs.cpp - Fuzzes the DSL's launch arguments: checks, specialization, key, what the kernel sees ---===//
//
// Any bytes become a kernel's parameter list and two launches' arguments, converted by the real code (the
// toLaunchArg a Kernel::launch uses, detail::validateArguments, detail::specializationFor, detail::compactKey,
// describeSpecialization and parseSpecialization), and every outcome is held against what the README and JIT.h
// promise, computed here independently:
//   - a number its parameter cannot hold exactly is refused, with a message naming the parameter: an integer
//     parameter (Int, Long, Bool, Const<int/int64_t/bool>, ...) takes integers in its type's range only, never a
//     float (not even 1024.0); brick::fromConfig outside the autotuner is refused; a descriptor must be one TMA can
//     use. Everything else is accepted;
//   - an accepted launch's specialization is the one documented (Const values, pointers 16-byte aligned, integers
//     equal to 1 or divisible by 2..16, descriptor blocks and extents), describeSpecialization reads back through
//     parseSpecialization to the same specialization, and two launches with the same compact key (the memory
//     cache's) have the same specialization;
//   - what the kernel sees: scalars and pointers are launched for real on the CPU interpreter (a one-parameter
//     probe kernel stores what it got), Const values are what the kernel body receives at build time. Integers
//     arrive exactly; a float given to a parameter of its own type arrives bit for bit (a signaling NaN may
//     arrive quieted); other numbers arrive as the nearest value of the parameter's type (a double rounding
//     through double or float is tolerated and noted in the report); a NaN arrives as a NaN;
//   - parseSpecialization of arbitrary text (the input's tail) never crashes, and what it accepts describes and
//     reads back to itself.
// A broken promise calls __builtin_trap(), which libFuzzer reports like a crash.
//
// Input: byte 0 % 9 = the number of parameters; per parameter one byte choosing its type (Params below), one byte
// choosing launch A's argument kind and value type, one byte choosing launch B's (bit 7: reuse A's value bytes), then
// 10 value bytes for A (and 10 for B), then for descriptors a flags byte and 3 bytes a dimension; the rest is text for
// parseSpecialization.
//
//===----------------------------------------------------------------------===//

#include "brick/JIT/Compile.h"
#include "brick/JIT/JIT.h"
#include "brick/Runtime/Device.h"
#include "brick/brick.h"

#include "../../lib/JIT/Internal.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

using namespace brick;
using detail::LaunchArg;
using detail::ParamInfo;
using detail::ParamKind;
using int128 = __int128;

namespace {

[[noreturn]] void violated(const char *what, const std::string &detail = "") {
  std::fprintf(stderr, "FuzzLaunchArgs: invariant violated: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
  __builtin_trap();
}
#define CHECK(cond, ...)                                                                                              \
  do {                                                                                                                \
    if (!(cond))                                                                                                      \
      violated(#cond, ##__VA_ARGS__);                                                                                 \
  } while (0)

/// How often each check ran, printed at exit when BRICK_FUZZ_STATS is set (is the fuzzer reaching everything?).
struct Stats {
  size_t launches = 0, accepted = 0, descriptorsAccepted = 0, sameKey = 0, constBuilds = 0, scalarLaunches = 0,
         pointerLaunches = 0, refusedLaunches = 0, parsed = 0;
  ~Stats() {
    if (std::getenv("BRICK_FUZZ_STATS"))
      std::fprintf(stderr,
                   "launches %zu (accepted %zu, with a descriptor %zu), same key %zu; probes: Const builds %zu, "
                   "scalar launches %zu, pointer launches %zu, refused launches %zu; text parsed %zu\n",
                   launches, accepted, descriptorsAccepted, sameKey, constBuilds, scalarLaunches, pointerLaunches,
                   refusedLaunches, parsed);
  }
} stats;

// The parameter types a kernel can have (all of them but more descriptor ranks and pointee types).
using Params = std::tuple<Bool, Scalar<i8>, Scalar<i16>, Int, Long, Scalar<f16>, Scalar<bf16>, Float, Scalar<f64>,
                          Const<bool>, Const<int>, Const<int64_t>, Const<float>, Const<double>, Ptr<f32>, Ptr<i8>,
                          Ptr<f16>, Ptr<i64>, TensorDescriptor<f32, 1>, TensorDescriptor<f16, 2>,
                          TensorDescriptor<i8, 3>, TensorDescriptor<f64, 5>>;
constexpr size_t kParams = std::tuple_size_v<Params>;
// The C++ numbers a Scalar or Const parameter can be given.
using Numbers = std::tuple<bool, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, float, double,
                           long double, char, char32_t, long long, unsigned long long>;
constexpr size_t kNumbers = std::tuple_size_v<Numbers>;

template <class Tuple, class F> void dispatch(size_t index, F &&f) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    ((index == I ? (f(std::type_identity<std::tuple_element_t<I, Tuple>>{}), 0) : 0), ...);
  }(std::make_index_sequence<std::tuple_size_v<Tuple>>{});
}

template <class P> struct Pointee;
template <ElementTag T> struct Pointee<Ptr<T>> { using type = T; };
template <class T> struct Host;
template <> struct Host<f32> { using type = float; };
template <> struct Host<i8> { using type = int8_t; };
template <> struct Host<f16> { using type = uint16_t; };
template <> struct Host<i64> { using type = int64_t; };

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
  std::string_view rest() const { return std::string_view(reinterpret_cast<const char *>(data_), size_); }

private:
  const uint8_t *data_;
  size_t size_;
};

/// Memory the pointer arguments point into: a host array and a buffer of the interpreter.
alignas(64) unsigned char hostArena[256];
const runtime::Device &interpreter() {
  static runtime::Device device = runtime::Device::interpreter();
  return device;
}
runtime::DeviceBuffer &arenaBuffer() {
  static runtime::DeviceBuffer buffer = [] {
    auto allocated = runtime::DeviceBuffer::allocate(interpreter(), 256);
    CHECK(allocated.ok(), allocated.error().message());
    return std::move(*allocated);
  }();
  return buffer;
}
runtime::DeviceBuffer &outBuffer() {
  static runtime::DeviceBuffer buffer = [] {
    auto allocated = runtime::DeviceBuffer::allocate(interpreter(), 64);
    CHECK(allocated.ok(), allocated.error().message());
    return std::move(*allocated);
  }();
  return buffer;
}

/// One argument as the user's C++ code gives it.
struct Given {
  enum class Kind { Number, FromConfig, HostPointer, VoidPointer, DevicePointer, Buffer, BufferOffset, Descriptor };
  Kind kind = Kind::Number;
  size_t number = 0;              // Kind::Number: the index into Numbers
  unsigned char raw[16] = {};     // Kind::Number: the value's bytes
  bool integral = false;          // the number is an integer type: `exact` is its value
  int128 exact = 0;
  size_t offset = 0;              // HostPointer, VoidPointer, BufferOffset: bytes into the arena
  uint64_t address = 0;           // pointers: the address the argument stands for
  TensorDescriptorArg descriptor; // Kind::Descriptor
};

template <class A> A numberFrom(const unsigned char *raw) {
  if constexpr (std::is_same_v<A, bool>)
    return raw[0] & 1;
  A value;
  std::memcpy(&value, raw, sizeof(A));
  return value;
}

/// A descriptor's extent, stride or block dimension: `usual` (mostly valid) for b < 224, else an odd value.
int64_t field(uint8_t b, int64_t usual) {
  static constexpr int64_t odd[32] = {0,          -1,         -16,       INT64_MIN,   INT64_MAX,   INT32_MAX,
                                      int64_t(1) << 31, int64_t(1) << 32, int64_t(1) << 62, 257, 512, 3,
                                      12,         24,         -256,      INT64_MAX - 15, int64_t(1) << 60, 17,
                                      6,          100,        1000,      65536,       2,           1,
                                      4,          8,          16,        32,          64,          128,
                                      255,        INT32_MIN};
  return b < 224 ? usual : odd[b - 224];
}

/// Decodes one argument of a `param` parameter: `selector` picks its kind and type, the value comes next.
Given decode(const ParamInfo &param, uint8_t selector, const unsigned char *raw, Reader &in) {
  Given given;
  std::memcpy(given.raw, raw, 10);
  uint64_t bits;
  std::memcpy(&bits, raw, sizeof(bits));
  switch (param.kind) {
  case ParamKind::Pointer: {
    static constexpr Given::Kind kinds[] = {Given::Kind::HostPointer, Given::Kind::VoidPointer, Given::Kind::DevicePointer,
                                            Given::Kind::Buffer, Given::Kind::BufferOffset};
    given.kind = kinds[selector % std::size(kinds)];
    given.offset = bits % 128;
    switch (given.kind) {
    case Given::Kind::HostPointer:
    case Given::Kind::VoidPointer: given.address = reinterpret_cast<uintptr_t>(hostArena + given.offset); break;
    case Given::Kind::DevicePointer: given.address = bits; break;
    case Given::Kind::Buffer: given.offset = 0; [[fallthrough]];
    default: given.address = arenaBuffer().address() + given.offset; break;
    }
    return given;
  }
  case ParamKind::TensorDescriptor: {
    given.kind = Given::Kind::Descriptor;
    // Flags: bit 7 an address of any alignment, bit 6 host memory, bit 5 a dimension too many or too few in the
    // shape (bits 0-1), the strides (bits 2-3) or the block shape (bit 4).
    uint8_t flags = in.byte();
    TensorDescriptorArg &desc = given.descriptor;
    desc.address = flags & 0x80 ? bits : (bits & 0xfff) * 16;
    desc.hostPointer = flags & 0x40;
    int rank = param.rank;
    auto count = [&](int bit) { return flags & 0x20 && flags >> bit & 1 ? rank + (flags >> (bit + 1) & 1 ? 1 : -1) : rank; };
    int extents = count(0), strides = count(2), blocks = flags & 0x20 && flags & 0x10 ? rank - 1 : rank;
    int64_t unit = 16 / std::max(1, int(bitWidth(param.dtype)) / 8); // elements in 16 bytes
    for (int d = 0; d < std::max({extents, strides, blocks}); ++d) {
      uint8_t e = in.byte(), s = in.byte(), b = in.byte();
      if (d < extents)
        desc.shape.push_back(field(e, e + 1));
      if (d < strides)
        desc.strides.push_back(field(s, d + 1 == rank ? 1 : (s % 64 + 1) * unit));
      if (d < blocks)
        desc.blockShape.push_back(field(b, int64_t(1) << (b % 9)));
    }
    return given;
  }
  case ParamKind::Constant:
    if (selector % (kNumbers + 1) == kNumbers) {
      given.kind = Given::Kind::FromConfig;
      return given;
    }
    [[fallthrough]];
  case ParamKind::Scalar:
    given.kind = Given::Kind::Number;
    given.number = selector % (param.kind == ParamKind::Constant ? kNumbers + 1 : kNumbers);
    dispatch<Numbers>(given.number, [&]<class A>(std::type_identity<A>) {
      if constexpr (std::is_integral_v<A>) {
        given.integral = true;
        given.exact = static_cast<int128>(numberFrom<A>(given.raw));
      }
    });
    return given;
  }
  return given;
}

/// The argument as Kernel::launch converts it (the real template, for the parameter's C++ type).
template <class P> LaunchArg convert(Given &given) {
  constexpr ParamInfo info = detail::Param<P>::info;
  if constexpr (info.kind == ParamKind::Pointer) {
    using T = typename Host<typename Pointee<P>::type>::type;
    switch (given.kind) {
    case Given::Kind::HostPointer: return detail::toLaunchArg<P>(reinterpret_cast<T *>(hostArena + given.offset));
    case Given::Kind::VoidPointer: return detail::toLaunchArg<P>(static_cast<void *>(hostArena + given.offset));
    case Given::Kind::Buffer: return detail::toLaunchArg<P>(arenaBuffer());
    default: return detail::toLaunchArg<P>(DevicePointer{given.address});
    }
  } else if constexpr (info.kind == ParamKind::TensorDescriptor) {
    return detail::toLaunchArg<P>(given.descriptor);
  } else {
    LaunchArg converted;
    if constexpr (info.kind == ParamKind::Constant)
      if (given.kind == Given::Kind::FromConfig)
        return detail::toLaunchArg<P>(fromConfig);
    dispatch<Numbers>(given.number,
                      [&]<class A>(std::type_identity<A>) { converted = detail::toLaunchArg<P>(numberFrom<A>(given.raw)); });
    return converted;
  }
}

LaunchArg convertFor(size_t param, Given &given) {
  LaunchArg converted;
  dispatch<Params>(param, [&]<class P>(std::type_identity<P>) { converted = convert<P>(given); });
  return converted;
}

// ---- What the documentation promises, computed without the code under test --------------------------------------

bool isFloatType(DType type) {
  return type == DType::F16 || type == DType::BF16 || type == DType::F32 || type == DType::F64;
}
int bits(DType type) {
  switch (type) {
  case DType::I1: return 1;
  case DType::I8: return 8;
  case DType::I16: case DType::F16: case DType::BF16: return 16;
  case DType::I32: case DType::F32: return 32;
  default: return 64;
  }
}

/// What JIT.h's TensorDescriptorArg comment asks of a descriptor (plus extents of 1 to 2^31 - 1).
bool descriptorFits(const ParamInfo &param, const TensorDescriptorArg &desc) {
  size_t rank = size_t(param.rank);
  if (desc.shape.size() != rank || desc.strides.size() != rank || desc.blockShape.size() != rank)
    return false;
  if (desc.address % 16)
    return false;
  int128 bytes = std::max(1, bits(param.dtype) / 8);
  for (size_t d = 0; d < rank; ++d) {
    int64_t block = desc.blockShape[d];
    if (desc.shape[d] < 1 || desc.shape[d] > INT32_MAX || block < 1 || block > 256 || std::popcount(uint64_t(block)) != 1)
      return false;
    if (d + 1 == rank ? desc.strides[d] != 1 || block * bytes < 16
                      : desc.strides[d] < 1 || (int128(desc.strides[d]) * bytes) % 16 != 0)
      return false;
  }
  return true;
}

bool accepted(const ParamInfo &param, const Given &given) {
  switch (param.kind) {
  case ParamKind::Pointer: return true;
  case ParamKind::TensorDescriptor: return descriptorFits(param, given.descriptor);
  default:
    if (given.kind == Given::Kind::FromConfig)
      return false;
    if (isFloatType(param.dtype))
      return true;
    if (!given.integral)
      return false; // integer parameters never round or truncate, whatever the float's value
    int w = bits(param.dtype);
    int128 low = w == 1 ? 0 : -(int128(1) << (w - 1)), high = w == 1 ? 1 : (int128(1) << (w - 1)) - 1;
    return given.exact >= low && given.exact <= high;
  }
}

/// The given number as a double, rounded once (what a float parameter's specialization holds).
double asDouble(const Given &given) {
  double value = 0;
  dispatch<Numbers>(given.number, [&]<class A>(std::type_identity<A>) { value = static_cast<double>(numberFrom<A>(given.raw)); });
  return value;
}

int64_t divisor(int128 value) {
  int64_t d = 1;
  while (d < 16 && value % (d * 2) == 0)
    d *= 2;
  return d;
}

Arg expectedArg(const ParamInfo &param, const Given &given) {
  switch (param.kind) {
  case ParamKind::Constant:
    if (param.dtype == DType::I1)
      return Arg(given.exact != 0);
    if (isFloatType(param.dtype))
      return Arg(asDouble(given));
    return Arg(static_cast<int64_t>(given.exact));
  case ParamKind::Pointer: return given.address % 16 == 0 ? Arg::divisibleBy(16) : Arg();
  case ParamKind::TensorDescriptor: {
    std::vector<int64_t> extents;
    for (int64_t e : given.descriptor.shape)
      extents.push_back(divisor(e));
    return Arg::descriptor(given.descriptor.blockShape, extents);
  }
  case ParamKind::Scalar:
    if (isFloatType(param.dtype) || param.dtype == DType::I1)
      return Arg();
    if (given.exact == 1)
      return Arg::equalToOne();
    return divisor(given.exact) > 1 ? Arg::divisibleBy(divisor(given.exact)) : Arg();
  }
  return Arg();
}

/// Two specialization entries alike (constants bit for bit; `looseNaN`: any NaN equals any NaN, as text keeps no
/// payload).
bool sameArg(const Arg &a, const Arg &b, bool looseNaN) {
  if (a.constant().index() != b.constant().index() || a.divisibility() != b.divisibility() ||
      a.equalsOne() != b.equalsOne() || a.blockShape() != b.blockShape() ||
      a.extentDivisibility() != b.extentDivisibility())
    return false;
  if (auto *x = std::get_if<double>(&a.constant())) {
    double y = std::get<double>(b.constant());
    if (looseNaN && std::isnan(*x) && std::isnan(y))
      return true;
    return std::bit_cast<uint64_t>(*x) == std::bit_cast<uint64_t>(y);
  }
  return a.constant() == b.constant();
}
bool sameSpec(const Specialization &a, const Specialization &b, bool looseNaN) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!sameArg(a[i], b[i], looseNaN))
      return false;
  return true;
}

// ---- What the kernel sees ------------------------------------------------------------------------------------------

/// The bits of the given number rounded to `semantics` directly, through double, and through float.
std::vector<llvm::APInt> roundings(const Given &given, const llvm::fltSemantics &semantics) {
  using llvm::APFloat;
  std::vector<llvm::APInt> results;
  bool lost;
  APFloat direct(semantics);
  if (given.integral) {
    uint64_t words[2] = {uint64_t(given.exact), uint64_t((unsigned __int128)given.exact >> 64)};
    direct.convertFromAPInt(llvm::APInt(128, words), /*IsSigned=*/true, APFloat::rmNearestTiesToEven);
  } else {
    dispatch<Numbers>(given.number, [&]<class A>(std::type_identity<A>) {
      if constexpr (std::is_same_v<A, long double>) {
        uint64_t words[2] = {};
        std::memcpy(words, given.raw, 10);
        direct = APFloat(APFloat::x87DoubleExtended(), llvm::APInt(80, words));
      } else if constexpr (std::is_same_v<A, float>) {
        direct = APFloat(numberFrom<float>(given.raw));
      } else if constexpr (std::is_same_v<A, double>) {
        direct = APFloat(numberFrom<double>(given.raw));
      }
    });
    direct.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
  }
  results.push_back(direct.bitcastToAPInt());
  APFloat viaDouble(asDouble(given));
  viaDouble.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
  results.push_back(viaDouble.bitcastToAPInt());
  APFloat viaFloat(static_cast<float>(asDouble(given)));
  viaFloat.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
  results.push_back(viaFloat.bitcastToAPInt());
  return results;
}

bool givenIsNaN(const Given &given) { return !given.integral && std::isnan(asDouble(given)); }

/// Checks `seen` (the parameter type's bits, in the low bytes) against the number given to a `param` parameter.
void checkSeen(const ParamInfo &param, const Given &given, uint64_t seen, const char *where) {
  std::string detail = std::string(where) + " param dtype " + std::string(name(param.dtype)) + " number type " +
                       std::to_string(given.number) + " seen bits " + std::to_string(seen);
  int w = bits(param.dtype);
  if (param.dtype == DType::I1) {
    CHECK(int128(seen) == given.exact, detail + ": an accepted boolean arrived changed");
    return;
  }
  if (!isFloatType(param.dtype)) {
    int128 value = w == 1 ? int128(seen & 1) : int128(w == 64 ? int64_t(seen) : int64_t(seen << (64 - w)) >> (64 - w));
    CHECK(value == given.exact, detail + ": an accepted integer arrived changed");
    return;
  }
  const llvm::fltSemantics &semantics = param.dtype == DType::F16    ? llvm::APFloat::IEEEhalf()
                                        : param.dtype == DType::BF16 ? llvm::APFloat::BFloat()
                                        : param.dtype == DType::F32  ? llvm::APFloat::IEEEsingle()
                                                                     : llvm::APFloat::IEEEdouble();
  llvm::APFloat seenValue(semantics, llvm::APInt(w, seen));
  if (givenIsNaN(given)) {
    CHECK(seenValue.isNaN(), detail + ": a NaN arrived as a number");
    return;
  }
  bool sameType = (given.number == 9 && param.dtype == DType::F32) || (given.number == 10 && param.dtype == DType::F64);
  std::vector<llvm::APInt> allowed = roundings(given, semantics);
  if (sameType) {
    CHECK(allowed[0] == seenValue.bitcastToAPInt(), detail + ": a float of the parameter's own type arrived changed");
    return;
  }
  bool fits = false;
  for (const llvm::APInt &candidate : allowed)
    fits |= candidate == seenValue.bitcastToAPInt();
  CHECK(fits, detail + ": a number arrived as neither its nearest value nor a double rounding of it");
}

LaunchOptions onInterpreter() {
  LaunchOptions options;
  options.device = &interpreter();
  return options;
}

uint64_t readOut(size_t bytes) {
  uint64_t value = 0;
  runtime::Error error = outBuffer().copyToHost(&value, bytes);
  CHECK(!error, error.message());
  return value;
}

template <class P> struct ScalarTag;
template <ElementTag T> struct ScalarTag<Scalar<T>> { using type = T; };

/// Launches a one-parameter probe (plus the output pointer) on the interpreter with the given argument; checks that
/// it is refused exactly when the parameter cannot take it, and that what the kernel stored is what was given.

template <class T> void probeScalar(const ParamInfo &param, Given &given, bool ok) {
  static auto probe = [] {
    if constexpr (std::is_same_v<T, Bool>)
      return kernel("probe_bool", [](Ptr<i32> out, Bool value) { store(out, where(value, 1, 0)); });
    else
      return kernel("probe_scalar", [](Ptr<typename ScalarTag<T>::type> out, T value) { store(out, value); });
  }();
  runtime::Error fill = outBuffer().fill(0xAB);
  CHECK(!fill, fill.message());
  runtime::Error error;
  dispatch<Numbers>(given.number, [&]<class A>(std::type_identity<A>) {
    error = probe.launch(Grid{1}, onInterpreter(), outBuffer(), numberFrom<A>(given.raw));
  });
  ++(ok ? stats.scalarLaunches : stats.refusedLaunches);
  if (!ok) {
    CHECK(error && error.message().find("parameter 1 ") != std::string::npos,
          "a refused scalar launched: " + error.message());
    return;
  }
  CHECK(!error, "an accepted scalar failed to launch: " + error.message());
  int w = std::is_same_v<T, Bool> ? 32 : bits(param.dtype);
  uint64_t seen = readOut(size_t(w / 8));
  checkSeen(param, given, std::is_same_v<T, Bool> ? seen & 0xffffffffu : seen, "interpreter launch");
}

/// The value a Const<T> parameter's kernel body receives for a specialization.
template <class T> struct Seen {
  static inline T value;
  static inline bool called;
};

template <class T> void probeConst(const ParamInfo &param, Given &given, bool ok) {
  static auto probe = kernel("probe_const", [](Const<T> value) {
    Seen<T>::value = value.value();
    Seen<T>::called = true;
  });
  static mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  LaunchArg converted = convert<Const<T>>(given);
  if (!ok) {
    // Refused before anything is built, so this launch is cheap.
    runtime::Error error;
    if (given.kind == Given::Kind::FromConfig)
      error = probe.launch(Grid{1}, onInterpreter(), fromConfig);
    else
      dispatch<Numbers>(given.number, [&]<class A>(std::type_identity<A>) {
        error = probe.launch(Grid{1}, onInterpreter(), numberFrom<A>(given.raw));
      });
    ++stats.refusedLaunches;
    CHECK(error && error.message().find("parameter 0 ") != std::string::npos,
          "a refused constant launched: " + error.message());
    return;
  }
  Specialization spec = detail::specializationFor({param}, {converted});
  auto parsed = parseSpecialization(describeSpecialization(spec), {param});
  CHECK(parsed.ok(), parsed.error().message());
  for (const Specialization *s : {&spec, &*parsed}) {
    ++stats.constBuilds;
    Seen<T>::called = false;
    BuildResult built = probe.build(&context, *s, nullptr);
    CHECK(built.ok() && Seen<T>::called, "an accepted constant does not build: " + built.errors());
    uint64_t seen = 0;
    std::memcpy(&seen, &Seen<T>::value, sizeof(T));
    if (s == &*parsed && givenIsNaN(given))
      CHECK(std::isnan(double(Seen<T>::value)), "a NaN constant read back as a number");
    else
      checkSeen(param, given, seen, s == &spec ? "Const build" : "Const build from the parsed text");
  }
}

/// A pointer into the host arena or the interpreter's buffer: the probe loads through it.
template <class P> void probePointer(const ParamInfo &, Given &given) {
  using E = typename Pointee<P>::type;
  using T = typename Host<E>::type;
  static auto probe = kernel("probe_pointer", [](Ptr<E> out, Ptr<E> p) { store(out, load(p)); });
  if (given.kind == Given::Kind::DevicePointer)
    return; // nothing is known there; the interpreter would refuse it (or find one of its own buffers)
  for (size_t i = 0; i < sizeof(hostArena); ++i)
    hostArena[i] = static_cast<unsigned char>((i * 7 + 1) & 0x3f); // no float NaN, whose payload may change
  std::vector<unsigned char> pattern(256);
  for (size_t i = 0; i < pattern.size(); ++i)
    pattern[i] = static_cast<unsigned char>((i * 13 + 5) & 0x3f);
  CHECK(!arenaBuffer().copyFromHost(pattern.data(), pattern.size()));
  CHECK(!outBuffer().fill(0xAB));
  ++stats.pointerLaunches;
  runtime::Error error;
  switch (given.kind) {
  case Given::Kind::HostPointer:
    error = probe.launch(Grid{1}, onInterpreter(), outBuffer(), reinterpret_cast<T *>(hostArena + given.offset));
    break;
  case Given::Kind::VoidPointer:
    error = probe.launch(Grid{1}, onInterpreter(), outBuffer(), static_cast<void *>(hostArena + given.offset));
    break;
  case Given::Kind::Buffer: error = probe.launch(Grid{1}, onInterpreter(), outBuffer(), arenaBuffer()); break;
  default: error = probe.launch(Grid{1}, onInterpreter(), outBuffer(), DevicePointer{given.address}); break;
  }
  // A misaligned load (the GPU would fault) is refused where the interpreter checks memory; through a host
  // pointer, which it cannot check, it reads what is there.
  if (given.address % sizeof(T) && error) {
    CHECK(error.message().find("not aligned") != std::string::npos, "a misaligned load failed: " + error.message());
    return;
  }
  CHECK(!error, "a pointer to valid memory failed to launch: " + error.message());
  const unsigned char *source =
      given.kind == Given::Kind::HostPointer || given.kind == Given::Kind::VoidPointer ? hostArena + given.offset
                                                                                      : pattern.data() + given.offset;
  uint64_t expected = 0;
  std::memcpy(&expected, source, sizeof(T));
  CHECK(readOut(sizeof(T)) == expected, "the kernel read something else than the pointer points at");
}

void probe(size_t index, const ParamInfo &param, Given &given, bool ok) {
  dispatch<Params>(index, [&]<class P>(std::type_identity<P>) {
    constexpr ParamInfo info = detail::Param<P>::info;
    if constexpr (info.kind == ParamKind::Scalar)
      probeScalar<P>(param, given, ok);
    else if constexpr (info.kind == ParamKind::Constant)
      probeConst<decltype(std::declval<P>().value())>(param, given, ok);
    else if constexpr (info.kind == ParamKind::Pointer)
      probePointer<P>(param, given);
  });
}

/// Text for parseSpecialization never crashes it; what it accepts is a specialization that describes and reads
/// back to itself.
void checkParse(std::string_view text, const std::vector<ParamInfo> &params) {
  auto parsed = parseSpecialization(text, params);
  if (!parsed.ok()) {
    CHECK(!parsed.error().message().empty(), "a parse failed without saying why");
    return;
  }
  ++stats.parsed;
  CHECK(parsed->size() == params.size(), "a parse gave a specialization of another length");
  std::string described = describeSpecialization(*parsed);
  auto again = parseSpecialization(described, params);
  CHECK(again.ok(), "'" + std::string(text) + "' parsed but its description '" + described + "' does not: " +
                        again.error().message());
  CHECK(describeSpecialization(*again) == described, described);
  CHECK(sameSpec(*parsed, *again, /*looseNaN=*/true), described);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Reader in(data, size);
  size_t count = in.byte() % 9;
  struct Element {
    size_t index;
    ParamInfo param;
    Given a, b;
  };
  std::vector<Element> elements;
  elements.reserve(count);
  std::vector<ParamInfo> params;
  for (size_t i = 0; i < count; ++i) {
    size_t index = in.byte() % kParams;
    ParamInfo param{};
    dispatch<Params>(index, [&]<class P>(std::type_identity<P>) { param = detail::Param<P>::info; });
    uint8_t selectorA = in.byte(), selectorB = in.byte();
    unsigned char rawA[10], rawB[10];
    for (unsigned char &c : rawA)
      c = in.byte();
    if (selectorB & 0x80)
      std::memcpy(rawB, rawA, sizeof(rawB));
    else
      for (unsigned char &c : rawB)
        c = in.byte();
    Given a = decode(param, selectorA, rawA, in);
    Given b = decode(param, selectorB & 0x7f, rawB, in);
    elements.push_back({index, param, std::move(a), std::move(b)});
    params.push_back(param);
  }

  // Convert both launches' arguments with the real toLaunchArg (descriptors point into `elements`, which stays put).
  std::vector<LaunchArg> argsA, argsB;
  for (Element &e : elements) {
    argsA.push_back(convertFor(e.index, e.a));
    argsB.push_back(convertFor(e.index, e.b));
  }
  CHECK(detail::validateArguments("k", params, argsA.data(), argsA.size() + 1),
        "a launch with an argument too many was accepted");

  LaunchOptions options;
  Specialization specs[2];
  llvm::SmallVector<int64_t, 24> keys[2];
  bool launchOk[2];
  for (int which = 0; which < 2; ++which) {
    const std::vector<LaunchArg> &args = which ? argsB : argsA;
    size_t firstRefused = count;
    for (size_t i = count; i-- > 0;)
      if (!accepted(params[i], which ? elements[i].b : elements[i].a))
        firstRefused = i;
    runtime::Error error = detail::validateArguments("k", params, args.data(), args.size());
    ++stats.launches;
    launchOk[which] = !error;
    if (firstRefused < count) {
      CHECK(error, "parameter " + std::to_string(firstRefused) + " (" + describeParameters({params[firstRefused]}) +
                       ") was given what it cannot hold, and the launch was accepted");
      CHECK(error.message().find("parameter " + std::to_string(firstRefused) + " ") != std::string::npos,
            "the error names another parameter: " + error.message());
      continue;
    }
    CHECK(!error, "a launch the documentation allows was refused: " + error.message());
    ++stats.accepted;
    for (const ParamInfo &param : params)
      if (param.kind == ParamKind::TensorDescriptor) {
        ++stats.descriptorsAccepted;
        break;
      }

    // The specialization: the documented one, described and read back unchanged.
    specs[which] = detail::specializationFor(params, args);
    CHECK(specs[which].size() == count);
    for (size_t i = 0; i < count; ++i) {
      Arg expected = expectedArg(params[i], which ? elements[i].b : elements[i].a);
      CHECK(sameArg(specs[which][i], expected, false),
            "parameter " + std::to_string(i) + " " + describeParameters({params[i]}) + ": specialized as " +
                describeSpecialization({specs[which][i]}) + ", documented " + describeSpecialization({expected}));
    }
    std::string text = describeSpecialization(specs[which]);
    auto parsed = parseSpecialization(text, params);
    CHECK(parsed.ok(), text + ": " + parsed.error().message());
    CHECK(describeSpecialization(*parsed) == text, text + " read back as " + describeSpecialization(*parsed));
    CHECK(sameSpec(*parsed, specs[which], /*looseNaN=*/true), text);
    detail::compactKey(params, args.data(), options, /*device=*/nullptr, keys[which]);
  }
  // The memory cache's key: launches that share one must share the specialization.
  if (launchOk[0] && launchOk[1] && keys[0] == keys[1] && ++stats.sameKey)
    CHECK(sameSpec(specs[0], specs[1], /*looseNaN=*/false),
          "one compact key for " + describeSpecialization(specs[0]) + " and " + describeSpecialization(specs[1]));

  // What the kernel sees, one parameter at a time.
  for (size_t i = 0; i < count; ++i)
    probe(elements[i].index, params[i], elements[i].a, accepted(params[i], elements[i].a));

  checkParse(in.rest(), params);
  return 0;
}
