//===- Tensor.h - Handles on the values of a kernel being built ------------===//
//
// A `Tensor` is a handle on one value of the kernel under construction: a block (a tensor of static,
// power-of-two shape) of numbers or pointers, or a scalar (rank 0). Handles are cheap to copy; assigning
// to one rebinds it. A handle means something only while its kernel is being built (inside the body);
// outside, shape() and dtype() answer as for an unset handle. `Scalar<T>` and `Ptr<T>` are handles whose type is known in C++: kernel parameters
// use them. Operators follow NumPy broadcasting and Triton's type promotion; see README.md.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_DSL_TENSOR_H
#define BRICK_DSL_TENSOR_H

#include "brick/DSL/Types.h"

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace brick {

template <class T> class Const;
namespace detail { struct Access; }

class Tensor {
public:
  /// An unset handle; using it in an op is an error at that op's line.
  Tensor() = default;

  bool isSet() const { return value_ != nullptr; }
  std::vector<int64_t> shape(Loc loc = Loc::current()) const;
  int64_t rank(Loc loc = Loc::current()) const { return static_cast<int64_t>(shape(loc).size()); }
  bool isScalar(Loc loc = Loc::current()) const { return shape(loc).empty(); }
  bool isPointer() const;
  /// The element type; for pointers, the type pointed to.
  DType dtype() const;

  /// Converts every element (C semantics; to i1 means "!= 0").
  Tensor to(DType type, Loc loc = Loc::current()) const;
  template <ElementTag T> Tensor to(Loc loc = Loc::current()) const { return to(T::dtype, loc); }

  Tensor expand_dims(int axis, Loc loc = Loc::current()) const;
  /// `x.column()` is NumPy's `x[:, None]` (shape [N, 1]); `x.row()` is `x[None, :]` (shape [1, N]).
  Tensor column(Loc loc = Loc::current()) const { return expand_dims(1, loc); }
  Tensor row(Loc loc = Loc::current()) const { return expand_dims(0, loc); }
  Tensor broadcast_to(std::vector<int64_t> shape, Loc loc = Loc::current()) const;
  Tensor reshape(std::vector<int64_t> shape, Loc loc = Loc::current()) const;
  /// Permutes the dimensions: result dimension i is dimension order[i]; no order reverses them.
  Tensor trans(std::vector<int32_t> order = {}, Loc loc = Loc::current()) const;

protected:
  void *value_ = nullptr; // mlir::Value's opaque pointer: keeps MLIR out of user code.
  friend struct detail::Access;
};

/// A scalar of element type T (`Int`, `Float`, ...). Converting a Tensor checks that it is a scalar and
/// widens it when that loses nothing (i32 -> i64, f16 -> f32); anything else is an error at that line.
template <ElementTag T> class Scalar : public Tensor {
public:
  Scalar() = default;
  Scalar(const Tensor &value, Loc loc = Loc::current());
};

/// A scalar pointer to elements of type T.
template <ElementTag T> class Ptr : public Tensor {
public:
  Ptr() = default;
  Ptr(const Tensor &value, Loc loc = Loc::current());
};

using Bool = Scalar<i1>;
using Int = Scalar<i32>;
using Long = Scalar<i64>;
using Float = Scalar<f32>;

namespace detail {
Tensor checkScalar(const Tensor &value, DType type, Loc loc);
Tensor checkPointer(const Tensor &value, DType pointee, Loc loc);
} // namespace detail

template <ElementTag T>
Scalar<T>::Scalar(const Tensor &value, Loc loc) : Tensor(detail::checkScalar(value, T::dtype, loc)) {}
template <ElementTag T>
Ptr<T>::Ptr(const Tensor &value, Loc loc) : Tensor(detail::checkPointer(value, T::dtype, loc)) {}

class Operand;
struct SharedByCluster;
namespace detail {
Tensor descriptorLoad(const Tensor &desc, const std::vector<Operand> &indices, const SharedByCluster *shared,
                      Loc loc);
void descriptorStore(const Tensor &desc, const std::vector<Operand> &indices, const Operand &value, Loc loc);
} // namespace detail

/// A kernel parameter: a Rank-dimensional tensor of T in global memory (base, shape, strides), read and
/// written a block at a time. The block shape comes with the launch's argument (a TensorDescriptorArg) and is
/// part of the specialization. Reading a block that reaches past the tensor's edges gives zeros there; writing
/// one writes only the elements inside. On sm_90a the compiler moves the blocks with TMA where it can.
template <ElementTag T, int Rank> class TensorDescriptor : public Tensor {
  static_assert(Rank >= 1 && Rank <= 5, "a TensorDescriptor has 1 to 5 dimensions");

public:
  TensorDescriptor() = default;
  explicit TensorDescriptor(const Tensor &desc) : Tensor(desc) {}
  /// The block whose first element is at `indices` (one integer per dimension, in elements).
  Tensor load(const std::vector<Operand> &indices, Loc loc = Loc::current()) const {
    return detail::descriptorLoad(*this, indices, nullptr, loc);
  }
  /// The same block, which every program of this program's cluster reads here too (sharedByCluster(when):
  /// where `when` holds). On sm_90a, in a warp-specialized K loop, each program of the cluster copies a share
  /// of it and TMA multicasts that share to all of them; elsewhere each reads it whole.
  Tensor load(const std::vector<Operand> &indices, const SharedByCluster &shared, Loc loc = Loc::current()) const {
    return detail::descriptorLoad(*this, indices, &shared, loc);
  }
  /// Writes `value` (the block's shape, or a scalar) with its first element at `indices`.
  void store(const std::vector<Operand> &indices, const Operand &value, Loc loc = Loc::current()) const {
    detail::descriptorStore(*this, indices, value, loc);
  }
};

/// One side of an operator: a handle or a C++ literal, with the source line it was written on.
class Operand {
public:
  Operand(const Tensor &value, Loc loc = Loc::current()) : value_(value), loc_(loc) {}
  template <std::integral I>
  Operand(I literal, Loc loc = Loc::current())
      : literal_(std::is_same_v<I, bool> ? Literal::Bool : Literal::Int), int_(static_cast<int64_t>(literal)),
        loc_(loc) {}
  template <std::floating_point F>
  Operand(F literal, Loc loc = Loc::current()) : literal_(Literal::Float), float_(literal), loc_(loc) {}
  template <class T> Operand(const Const<T> &constant, Loc loc = Loc::current()) : Operand(constant.value(), loc) {}

  Loc loc() const { return loc_; }

private:
  enum class Literal { None, Bool, Int, Float };
  Tensor value_;
  Literal literal_ = Literal::None;
  int64_t int_ = 0;
  double float_ = 0;
  Loc loc_;
  friend struct detail::Access;
};

/// A descriptor load's promise (TensorDescriptor::load): all programs of a cluster run the loops around it as
/// many times (in step), and where `when` holds, as it does for all of them alike, they all read the same block
/// here, so that one copy can serve them all. A false promise gives wrong blocks or a hang on the GPU.
struct SharedByCluster {
  Operand when;
};
inline SharedByCluster sharedByCluster(const Operand &when = true) { return {when}; }

// Arithmetic (C semantics for integers: `/` truncates, `%` takes the dividend's sign), pointer + integer
// advances by elements, comparisons give i1 blocks, `&` `|` `^` `~` are bitwise (logical on i1).
Tensor operator+(const Operand &a, const Operand &b);
Tensor operator-(const Operand &a, const Operand &b);
Tensor operator*(const Operand &a, const Operand &b);
Tensor operator/(const Operand &a, const Operand &b);
Tensor operator%(const Operand &a, const Operand &b);
Tensor operator<(const Operand &a, const Operand &b);
Tensor operator<=(const Operand &a, const Operand &b);
Tensor operator>(const Operand &a, const Operand &b);
Tensor operator>=(const Operand &a, const Operand &b);
Tensor operator==(const Operand &a, const Operand &b);
Tensor operator!=(const Operand &a, const Operand &b);
Tensor operator&(const Operand &a, const Operand &b);
Tensor operator|(const Operand &a, const Operand &b);
Tensor operator^(const Operand &a, const Operand &b);
Tensor operator<<(const Operand &a, const Operand &b);
Tensor operator>>(const Operand &a, const Operand &b);
Tensor operator-(const Operand &a);
Tensor operator~(const Operand &a);
Tensor operator!(const Operand &a);

// Compound assignment rebinds the handle; a typed handle (Int, Ptr<T>) keeps its C++ type, so the result
// must still fit it.
namespace detail {
template <std::derived_from<Tensor> H> H rebind(const Tensor &value, Loc loc) {
  if constexpr (std::is_same_v<H, Tensor>)
    return value;
  else
    return H(value, loc);
}
} // namespace detail
template <std::derived_from<Tensor> H> H &operator+=(H &h, const Operand &b) { return h = detail::rebind<H>(h + b, b.loc()); }
template <std::derived_from<Tensor> H> H &operator-=(H &h, const Operand &b) { return h = detail::rebind<H>(h - b, b.loc()); }
template <std::derived_from<Tensor> H> H &operator*=(H &h, const Operand &b) { return h = detail::rebind<H>(h * b, b.loc()); }
template <std::derived_from<Tensor> H> H &operator/=(H &h, const Operand &b) { return h = detail::rebind<H>(h / b, b.loc()); }

} // namespace brick

#endif // BRICK_DSL_TENSOR_H
