//===- Types.h - Element types of Brick blocks -----------------------------===//
//
// `DType` names an element type at run time; the tag types (`f32`, `i32`, ...) name one at compile time, in
// kernel signatures (`Ptr<f16>`) and casts (`x.to<bf16>()`).
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_DSL_TYPES_H
#define BRICK_DSL_TYPES_H

#include <cstdint>
#include <source_location>
#include <string_view>

namespace brick {

/// Where a DSL call was written; every op records it so errors point at the user's line.
using Loc = std::source_location;

/// F8E4M3 and F8E5M2 are Hopper's 8-bit floats (e4m3fn: no infinity, largest 448; e5m2: largest 57344): blocks of
/// them are loaded, stored, converted (`to<f32>()`; to them rounding to nearest even and saturating) and
/// multiplied by dots, not computed with.
enum class DType { I1, I8, I16, I32, I64, F16, BF16, F32, F64, F8E4M3, F8E5M2 };

/// "f32", "i1", ...
std::string_view name(DType type);
bool isFloat(DType type);
bool isInteger(DType type); ///< i1 included.
unsigned bitWidth(DType type);

// Compile-time names of the element types.
struct i1 { static constexpr DType dtype = DType::I1; };
struct i8 { static constexpr DType dtype = DType::I8; };
struct i16 { static constexpr DType dtype = DType::I16; };
struct i32 { static constexpr DType dtype = DType::I32; };
struct i64 { static constexpr DType dtype = DType::I64; };
struct f16 { static constexpr DType dtype = DType::F16; };
struct bf16 { static constexpr DType dtype = DType::BF16; };
struct f32 { static constexpr DType dtype = DType::F32; };
struct f64 { static constexpr DType dtype = DType::F64; };
struct f8e4m3 { static constexpr DType dtype = DType::F8E4M3; };
struct f8e5m2 { static constexpr DType dtype = DType::F8E5M2; };

template <class T>
concept ElementTag = requires { { T::dtype } -> std::convertible_to<DType>; };

} // namespace brick

#endif // BRICK_DSL_TYPES_H
