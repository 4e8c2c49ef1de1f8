//===- Kernel.h - Defining a kernel and building one specialization of it ------===//
//
//   auto add = brick::kernel("vector_add", [](Ptr<f32> x, Ptr<f32> y, Ptr<f32> out, Int n, Const<int> BLOCK) {
//     Tensor offs = program_id(0) * BLOCK + arange(0, BLOCK);
//     store(out + offs, load(x + offs, offs < n) + load(y + offs, offs < n), offs < n);
//   });
//   BuildResult ir = add.build({dyn, dyn, dyn, dyn, 1024});   // Const parameters take their value here
//
// Parameters are Ptr<T> (a pointer to global memory), Scalar<T> (Int, Long, Float, Bool), Const<T> (a
// value fixed per specialization: int, int64_t, bool, float or double) or TensorDescriptor<T, Rank> (a strided
// tensor read and written in blocks). Building runs the C++ body once and
// records every op with its source location; a misuse becomes a Diagnostic at the user's line.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_DSL_KERNEL_H
#define BRICK_DSL_KERNEL_H

#include "brick/DSL/Ops.h"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>

namespace mlir {
class MLIRContext;
class Operation;
} // namespace mlir

namespace brick {

namespace runtime {
class Error;
} // namespace runtime
struct Grid;
struct LaunchOptions;

/// A kernel parameter whose value is part of the specialization: known while the kernel is built.
template <class T> class Const {
  static_assert(std::is_same_v<T, int> || std::is_same_v<T, int64_t> || std::is_same_v<T, bool> ||
                    std::is_same_v<T, float> || std::is_same_v<T, double>,
                "Const<T> takes int, int64_t, bool, float or double");

public:
  explicit Const(T value) : value_(value) {}
  T value() const { return value_; }
  operator T() const { return value_; }

private:
  T value_;
};

/// What one specialization knows about one argument: the value of a Const parameter, or facts about a
/// runtime argument that let the compiler do better (a pointer 16-byte aligned, an integer a multiple of 16
/// or equal to 1).
class Arg {
public:
  /// A runtime argument about which nothing is known.
  Arg() = default;
  /// A runtime argument that is a multiple of `divisibility` (pointers: their address, in bytes).
  static Arg divisibleBy(int64_t divisibility) {
    Arg arg;
    arg.divisibility_ = divisibility;
    return arg;
  }
  /// A TensorDescriptor argument whose blocks have `blockShape`; its extents are multiples of
  /// `extentDivisibility` (one per dimension; empty: nothing known), which lets masks at the tensor's edges be
  /// proven constant over vectors.
  static Arg descriptor(std::vector<int64_t> blockShape, std::vector<int64_t> extentDivisibility = {}) {
    Arg arg;
    arg.blockShape_ = std::move(blockShape);
    arg.extentDivisibility_ = std::move(extentDivisibility);
    return arg;
  }
  /// A runtime integer argument equal to 1 (strides often are); the kernel is built with the constant.
  static Arg equalToOne() {
    Arg arg;
    arg.equalsOne_ = true;
    return arg;
  }
  template <class T> requires std::is_arithmetic_v<T> Arg(T constant) {
    if constexpr (std::is_same_v<T, bool>)
      constant_ = constant;
    else if constexpr (std::is_integral_v<T>)
      constant_ = static_cast<int64_t>(constant);
    else
      constant_ = static_cast<double>(constant);
  }

  bool isConstant() const { return !std::holds_alternative<std::monostate>(constant_); }
  const std::variant<std::monostate, bool, int64_t, double> &constant() const { return constant_; }
  int64_t divisibility() const { return divisibility_; }
  bool equalsOne() const { return equalsOne_; }
  const std::vector<int64_t> &blockShape() const { return blockShape_; }
  const std::vector<int64_t> &extentDivisibility() const { return extentDivisibility_; }

private:
  std::variant<std::monostate, bool, int64_t, double> constant_;
  int64_t divisibility_ = 1;
  bool equalsOne_ = false;
  std::vector<int64_t> blockShape_, extentDivisibility_;
};
/// A runtime argument about which nothing is known: `build({dyn, dyn, 1024})`.
inline const Arg dyn{};
using Specialization = std::vector<Arg>;

/// An error (or note) at a place in the user's source.
struct Diagnostic {
  std::string file;
  unsigned line = 0, column = 0;
  std::string message;
  /// "file:line:column: error: message", as compilers print it.
  std::string str() const;
};

/// The brick IR of one specialization, or the diagnostics that stopped it.
class BuildResult {
public:
  bool ok() const { return diagnostics_.empty(); }
  explicit operator bool() const { return ok(); }
  const std::vector<Diagnostic> &diagnostics() const { return diagnostics_; }
  /// Every diagnostic, one per line.
  std::string errors() const;
  /// The module in MLIR's textual form (empty when the build failed).
  const std::string &ir() const { return ir_; }

  std::vector<Diagnostic> diagnostics_;
  std::string ir_;
};

namespace detail {

enum class ParamKind { Pointer, Scalar, Constant, TensorDescriptor };
struct ParamInfo {
  ParamKind kind;
  DType dtype;  // element, pointee or (for Const) value type
  int rank = 0; // a TensorDescriptor's dimensions
};

template <class P> struct Param;
template <ElementTag T> struct Param<Ptr<T>> { static constexpr ParamInfo info{ParamKind::Pointer, T::dtype}; };
template <ElementTag T> struct Param<Scalar<T>> { static constexpr ParamInfo info{ParamKind::Scalar, T::dtype}; };
template <ElementTag T, int Rank> struct Param<TensorDescriptor<T, Rank>> {
  static constexpr ParamInfo info{ParamKind::TensorDescriptor, T::dtype, Rank};
};
template <class T> struct Param<Const<T>> {
  static constexpr ParamInfo info{
      ParamKind::Constant,
      std::is_same_v<T, bool> ? DType::I1
      : std::is_same_v<T, int> ? DType::I32
      : std::is_same_v<T, int64_t> ? DType::I64
      : std::is_same_v<T, float> ? DType::F32
                                 : DType::F64};
};

template <class F> struct Signature : Signature<decltype(&F::operator())> {};
template <class C, class... P> struct Signature<void (C::*)(P...) const> {
  using Params = std::tuple<std::decay_t<P>...>;
};
template <class... P> struct Signature<void (*)(P...)> { using Params = std::tuple<std::decay_t<P>...>; };

/// Builds one kernel: owns the module under construction and is the "current kernel" DSL ops append to.
class KernelBuilder;

struct BuildSession {
  BuildSession(mlir::MLIRContext *context, const std::string &name, const std::vector<ParamInfo> &params,
               const Specialization &spec, Loc loc);
  ~BuildSession();
  bool ok() const;
  /// The handle of parameter `index` (a block argument, or the constant 1 for an Arg::equalToOne()).
  Tensor parameter(size_t index) const;
  /// The value of Const parameter `index`, converted to T (checked against the specialization).
  template <class T> Const<T> constant(size_t index) const {
    const auto &value = spec_[index].constant();
    if (auto *b = std::get_if<bool>(&value))
      return Const<T>(static_cast<T>(*b));
    if (auto *i = std::get_if<int64_t>(&value))
      return Const<T>(static_cast<T>(*i));
    if (auto *d = std::get_if<double>(&value))
      return Const<T>(static_cast<T>(*d));
    return Const<T>(T{});
  }
  /// Finishes the function, verifies the module and prints it; when that succeeds and `run` is given,
  /// calls it with the module (a ModuleOp's Operation) before the session frees it.
  BuildResult finish(const std::function<void(mlir::Operation *)> &run);

private:
  std::unique_ptr<KernelBuilder> builder_;
  Specialization spec_;
  std::vector<ParamInfo> params_;
  std::vector<Tensor> descriptors_; // per parameter: its descriptor value (TensorDescriptor parameters)
};

template <class Params, size_t... I>
Params makeParameters(const BuildSession &session, std::index_sequence<I...>) {
  auto make = [&]<class P>(std::type_identity<P>, size_t index) -> P {
    if constexpr (Param<P>::info.kind == ParamKind::Constant)
      return session.constant<decltype(std::declval<P>().value())>(index);
    else
      return P(session.parameter(index));
  };
  return Params{make(std::type_identity<std::tuple_element_t<I, Params>>{}, I)...};
}

} // namespace detail

namespace detail {
/// What the JIT keeps per kernel (shared by copies of it): compiled specializations, and why each was
/// compiled. Filled by brick/JIT.h.
struct JitState {
  std::mutex mutex;
  /// Compact specialization key (one number per parameter, then warps, stages, device) -> loaded kernel.
  std::vector<std::pair<std::vector<int64_t>, std::shared_ptr<void>>> compiled;
  std::vector<std::string> log; // one line per specialization
};
} // namespace detail

/// A kernel: a name and a C++ callable over handles. Cheap to copy.
template <class F> class Kernel {
public:
  using Params = typename detail::Signature<F>::Params;
  static constexpr size_t arity = std::tuple_size_v<Params>;

  Kernel(std::string name, F body, Loc loc)
      : name_(std::move(name)), body_(std::move(body)), loc_(loc), jit_(std::make_shared<detail::JitState>()) {}

  const std::string &name() const { return name_; }
  static std::vector<detail::ParamInfo> params() {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return std::vector<detail::ParamInfo>{detail::Param<std::tuple_element_t<I, Params>>::info...};
    }(std::make_index_sequence<arity>{});
  }

  /// Builds the brick IR of one specialization (one Arg per parameter; empty: nothing known, which
  /// needs a kernel without Const parameters) in a fresh MLIR context.
  BuildResult build(const Specialization &spec = {}) const { return build(nullptr, spec, nullptr); }

  /// Builds into `context` (a fresh one when null) and, when `run` is given, calls it with the verified
  /// module (the compiler uses this).
  BuildResult build(mlir::MLIRContext *context, const Specialization &spec,
                    const std::function<void(mlir::Operation *)> &run) const {
    detail::BuildSession session(context, name_, params(), spec, loc_);
    if (session.ok())
      std::apply(body_, detail::makeParameters<Params>(session, std::make_index_sequence<arity>{}));
    return session.finish(run);
  }

  /// Launches on the GPU (include brick/JIT.h): the first launch of each specialization compiles it.
  /// `args` are the kernel's parameters in order: DeviceBuffers (or DevicePointers) for Ptr<T>, numbers for
  /// Scalar<T> and Const<T>.
  template <class... A> runtime::Error launch(Grid grid, LaunchOptions options, A &&...args) const;
  /// One line per specialization compiled or loaded so far, saying which and why.
  std::vector<std::string> specializations() const {
    std::lock_guard<std::mutex> lock(jit_->mutex);
    return jit_->log;
  }
  detail::JitState &jitState() const { return *jit_; }

private:
  std::string name_;
  F body_;
  Loc loc_;
  std::shared_ptr<detail::JitState> jit_;
};

/// Defines a kernel named `name` whose body is `body` (a lambda or function over handles).
template <class F> Kernel<F> kernel(std::string name, F body, Loc loc = Loc::current()) {
  return Kernel<F>(std::move(name), std::move(body), loc);
}

} // namespace brick

#endif // BRICK_DSL_KERNEL_H
