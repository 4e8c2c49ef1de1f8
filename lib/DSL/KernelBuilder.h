//===- KernelBuilder.h - The kernel under construction (private to lib/DSL) ---===//
//
// DSL calls append ops to the innermost KernelBuilder of the calling thread. A misuse records a Diagnostic
// and yields a *poison* value (an operand-less unrealized_conversion_cast) so the C++ body can run on;
// ops over poison yield poison silently, so one mistake gives one message rather than a cascade.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_LIB_DSL_KERNELBUILDER_H
#define BRICK_LIB_DSL_KERNELBUILDER_H

#include "brick/DSL/Kernel.h"
#include "brick/Dialect/Brick/BrickDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>

namespace brick::detail {

/// The bridge between public handles and MLIR values.
struct Access {
  static mlir::Value value(const Tensor &handle) { return mlir::Value::getFromOpaquePointer(handle.value_); }
  static Tensor wrap(mlir::Value value) {
    Tensor handle;
    handle.value_ = value.getAsOpaquePointer();
    return handle;
  }
  static const Tensor &handle(const Operand &operand) { return operand.value_; }
  static bool isLiteral(const Operand &operand) { return operand.literal_ != Operand::Literal::None; }
  static bool isFloatLiteral(const Operand &operand) { return operand.literal_ == Operand::Literal::Float; }
  static bool isBoolLiteral(const Operand &operand) { return operand.literal_ == Operand::Literal::Bool; }
  static int64_t intLiteral(const Operand &operand) { return operand.int_; }
  static double floatLiteral(const Operand &operand) { return operand.float_; }
};

class KernelBuilder {
public:
  KernelBuilder(mlir::MLIRContext *context, Loc loc);
  ~KernelBuilder();
  KernelBuilder(const KernelBuilder &) = delete;
  KernelBuilder &operator=(const KernelBuilder &) = delete;

  /// The innermost kernel being built on this thread; outside any, prints an error naming `what` and
  /// returns null.
  static KernelBuilder *current(const char *what, Loc loc);
  /// Whether a kernel is being built on this thread. Handles point into the module under construction, so
  /// they may only be read while one is.
  static bool active();

  mlir::MLIRContext *context() const { return context_; }
  mlir::OpBuilder &builder() { return builder_; }
  mlir::Location location(Loc loc);

  //===--- Errors -------------------------------------------------------------===//
  void error(Loc loc, const llvm::Twine &message);
  void error(mlir::Location loc, const llvm::Twine &message);
  bool failed() const { return !diagnostics_.empty(); }
  std::vector<Diagnostic> &diagnostics() { return diagnostics_; }
  /// A placeholder value of `type` (i32 when null) standing for the result of a failed op.
  Tensor poison(mlir::Type type = {});
  bool isPoison(mlir::Value value) const;
  /// Records an error at `loc` and returns poison of `type`.
  Tensor fail(Loc loc, const llvm::Twine &message, mlir::Type type = {});

  //===--- Operands -------------------------------------------------------------===//
  /// The value behind a handle; an unset handle is an error ("what" names the op) and gives null.
  mlir::Value use(const Tensor &handle, const char *what, Loc loc);
  /// The value of an operand; a literal takes its type from `like` (the other side of the operator).
  mlir::Value use(const Operand &operand, mlir::Type like, const char *what, Loc loc);

  //===--- Types, constants, conversions ---------------------------------------===//
  mlir::Type type(DType dtype);
  mlir::Value constant(mlir::Type type, double value, Loc loc);
  mlir::Value constantInt(mlir::Type type, int64_t value, Loc loc);
  /// Converts every element of `value` to `elementType` (C semantics; to i1 means != 0).
  mlir::Value convert(mlir::Value value, mlir::Type elementType, Loc loc);
  /// The element type both sides of a binary op are converted to.
  mlir::Type promote(mlir::Type a, mlir::Type b) const;
  /// NumPy broadcasting of two values to one shape; null values (and an error) when the shapes don't fit.
  std::pair<mlir::Value, mlir::Value> broadcastPair(mlir::Value a, mlir::Value b, const char *what, Loc loc);
  /// Broadcasts `value` to exactly `shape` (splat for scalars); null (and an error) when it cannot.
  mlir::Value broadcastTo(mlir::Value value, llvm::ArrayRef<int64_t> shape, const char *what, Loc loc);

  //===--- The kernel -------------------------------------------------------------===//
  mlir::OwningOpRef<mlir::ModuleOp> &module() { return module_; }
  mlir::func::FuncOp &function() { return function_; }

private:
  std::unique_ptr<mlir::MLIRContext> ownedContext_;
  mlir::MLIRContext *context_;
  mlir::OpBuilder builder_;
  mlir::OwningOpRef<mlir::ModuleOp> module_;
  mlir::func::FuncOp function_;
  std::vector<Diagnostic> diagnostics_;
  KernelBuilder *enclosing_;
};

/// The DType of an element type (the pointee's, for pointers).
std::optional<DType> dtypeOf(mlir::Type elementType);

/// Whether a block of shape `from` broadcasts to exactly `to` (NumPy's rule: aligned on the right, each
/// dimension equal or 1; a scalar, the empty shape, broadcasts to anything).
bool broadcastsTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

/// "tensor<128xf32>" / "i32": types as DSL messages show them.
std::string describe(mlir::Type type);
/// "[64, 128]".
std::string describeShape(llvm::ArrayRef<int64_t> shape);
/// For trans: the order that moves dimension `axis` of a rank-`rank` block last, and the order that puts it back.
std::pair<std::vector<int32_t>, std::vector<int32_t>> axisLastOrders(int rank, int axis);
/// The block behind `x` for the DSL function `what` (null, with an error at `loc`, when it is unset, a scalar
/// where a block is needed, or poison).
mlir::RankedTensorType blockType(const char *what, const Tensor &x, Loc loc, bool allowScalar = false);

} // namespace brick::detail

// What every DSL source file here uses (this header is private to lib/DSL).
namespace brick {
using detail::Access;
using detail::KernelBuilder;
namespace bir = mlir::brick;
} // namespace brick

#endif // BRICK_LIB_DSL_KERNELBUILDER_H
