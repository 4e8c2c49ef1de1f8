//===- Ops.h - The operations a Brick kernel is written with ----------------===//
//
// Free functions over handles, modelled on triton.language. Each takes the caller's source location as a
// defaulted last argument; a misuse is reported there (see Kernel.h for how errors come back).
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_DSL_OPS_H
#define BRICK_DSL_OPS_H

#include "brick/DSL/Tensor.h"

#include <array>
#include <utility>
#include <functional>
#include <string>

namespace brick {

//===--- Program identity and making blocks ----------------------------------===//

/// Index of this program along grid axis 0, 1 or 2.
Int program_id(int axis, Loc loc = Loc::current());
/// Number of programs along grid axis 0, 1 or 2.
Int num_programs(int axis, Loc loc = Loc::current());
/// This program's index in its cluster (LaunchOptions::clusterSize consecutive programs along axis 0), and the
/// cluster's size: 0 and 1 without clusters.
Int cluster_rank(Loc loc = Loc::current());
Int cluster_size(Loc loc = Loc::current());
/// The i32 block start, start + 1, ..., end - 1; end - start must be a power of two.
Tensor arange(int64_t start, int64_t end, Loc loc = Loc::current());
/// A block of the given shape filled with `value` converted to `type`.
Tensor full(std::vector<int64_t> shape, double value, DType type, Loc loc = Loc::current());
Tensor zeros(std::vector<int64_t> shape, DType type, Loc loc = Loc::current());
template <ElementTag T> Tensor full(std::vector<int64_t> shape, double value, Loc loc = Loc::current()) {
  return full(std::move(shape), value, T::dtype, loc);
}
template <ElementTag T> Tensor zeros(std::vector<int64_t> shape, Loc loc = Loc::current()) {
  return zeros(std::move(shape), T::dtype, loc);
}
/// Rounds-up integer division, (a + b - 1) / b.
Tensor cdiv(const Operand &a, const Operand &b, Loc loc = Loc::current());

/// Which output tile a program computes, for a grid of tilesM x tilesN tiles visited in groups of `groupM`
/// tile rows, column by column within a group: consecutive programs then share tiles of the right-hand
/// operand in L2 (Triton's "grouped ordering"). `program` runs over [0, tilesM * tilesN).
struct Tile {
  Int m, n;
};
Tile grouped_tile(const Int &program, const Int &tilesM, const Int &tilesN, const Operand &groupM,
                  Loc loc = Loc::current());

//===--- Elementwise ------------------------------------------------------------===//

/// `condition ? a : b` per element, after broadcasting all three.
Tensor where(const Operand &condition, const Operand &a, const Operand &b, Loc loc = Loc::current());
Tensor maximum(const Operand &a, const Operand &b, Loc loc = Loc::current());
Tensor minimum(const Operand &a, const Operand &b, Loc loc = Loc::current());

// Floating-point math (integers are an error: convert with .to<f32>() first); abs also takes integers.
Tensor exp(const Tensor &x, Loc loc = Loc::current());
Tensor exp2(const Tensor &x, Loc loc = Loc::current());
Tensor log(const Tensor &x, Loc loc = Loc::current());
Tensor log2(const Tensor &x, Loc loc = Loc::current());
Tensor sqrt(const Tensor &x, Loc loc = Loc::current());
Tensor rsqrt(const Tensor &x, Loc loc = Loc::current());
Tensor abs(const Tensor &x, Loc loc = Loc::current());
Tensor sin(const Tensor &x, Loc loc = Loc::current());
Tensor cos(const Tensor &x, Loc loc = Loc::current());
Tensor tanh(const Tensor &x, Loc loc = Loc::current());
Tensor erf(const Tensor &x, Loc loc = Loc::current());
Tensor floor(const Tensor &x, Loc loc = Loc::current());
Tensor ceil(const Tensor &x, Loc loc = Loc::current());
/// 1 / (1 + exp(-x)).
Tensor sigmoid(const Tensor &x, Loc loc = Loc::current());
/// a * b + c rounded once (a fused multiply-add: fma.rn), after broadcasting all three. `a * b + c` rounds twice:
/// Brick never fuses what the kernel did not ask to fuse, so that the interpreter and every target agree.
Tensor fma(const Operand &a, const Operand &b, const Operand &c, Loc loc = Loc::current());

//===--- Memory -----------------------------------------------------------------===//

enum class Cache { None, CA, CG, CS, LU, CV, WB, WT };
enum class Evict { Normal, First, Last };
struct MemoryHints {
  Cache cache = Cache::None;
  Evict evict = Evict::Normal;
  bool isVolatile = false;
};

/// Reads through a pointer or a block of pointers. Where `mask` (i1, broadcast to the pointers' shape) is
/// false nothing is read and the element is `other` (converted to the element type), or undefined without it.
Tensor load(const Tensor &pointers, Loc loc = Loc::current());
Tensor load(const Tensor &pointers, const Operand &mask, Loc loc = Loc::current());
Tensor load(const Tensor &pointers, const Operand &mask, const Operand &other, Loc loc = Loc::current());
Tensor load(const Tensor &pointers, const Operand &mask, const Operand &other, MemoryHints hints,
            Loc loc = Loc::current());
/// Writes `value` (broadcast to the pointers' shape, converted to the element type) where `mask` is true.
void store(const Tensor &pointers, const Operand &value, Loc loc = Loc::current());
void store(const Tensor &pointers, const Operand &value, const Operand &mask, Loc loc = Loc::current());
void store(const Tensor &pointers, const Operand &value, const Operand &mask, MemoryHints hints,
           Loc loc = Loc::current());

enum class Atomic { Add, Max, Min, And, Or, Xor, Exchange };
enum class MemoryOrder { Relaxed, Acquire, Release, AcqRel };
enum class Scope { GPU, CTA, System };
struct AtomicOptions {
  MemoryOrder order = MemoryOrder::AcqRel;
  Scope scope = Scope::GPU;
};
/// Atomically combines `value` into each element where `mask` is true; returns the old elements.
Tensor atomic(Atomic op, const Tensor &pointers, const Operand &value, Loc loc = Loc::current());
Tensor atomic(Atomic op, const Tensor &pointers, const Operand &value, const Operand &mask,
              AtomicOptions options = {}, Loc loc = Loc::current());
Tensor atomic_add(const Tensor &pointers, const Operand &value, Loc loc = Loc::current());
Tensor atomic_add(const Tensor &pointers, const Operand &value, const Operand &mask, Loc loc = Loc::current());
/// Where an element equals `compare`, replaces it with `value`; returns the old elements.
Tensor atomic_cas(const Tensor &pointers, const Operand &compare, const Operand &value,
                  AtomicOptions options = {}, Loc loc = Loc::current());

//===--- Moving data inside a block --------------------------------------------------------===//

/// A new last dimension of 2: result[..., 0] = a, result[..., 1] = b (same shapes and types).
Tensor join(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
/// join's inverse: a block whose last dimension is 2 into its two halves (numbers; exact, signed zeros too).
std::pair<Tensor, Tensor> split(const Tensor &x, Loc loc = Loc::current());
/// a's rows, then b's: [n, ...] and [n, ...] give [2n, ...].
Tensor cat(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
/// The dimensions in a new order (result dimension i is x's dimension order[i]); trans by another name.
Tensor permute(const Tensor &x, std::vector<int32_t> order, Loc loc = Loc::current());
/// The elements in reverse order along `axis`.
Tensor flip(const Tensor &x, int axis, Loc loc = Loc::current());
/// Elements of x taken along `axis` at `indices` (integers, x's rank, x's shape but along the axis):
/// result[i][j] = x[indices[i][j]][j] for axis 0. An index outside the axis is an error on the interpreter and
/// undefined on the GPU.
Tensor gather(const Tensor &x, const Tensor &indices, int axis, Loc loc = Loc::current());
/// Sorted along the last dimension (a bitonic network; each row of a 2-D block on its own).
Tensor sort(const Tensor &x, bool descending = false, Loc loc = Loc::current());
/// The k largest along the last dimension, largest first (k a power of two).
Tensor topk(const Tensor &x, int64_t k, Loc loc = Loc::current());

//===--- Compiler hints --------------------------------------------------------------===//

// Facts about integer blocks the compiler's analysis cannot prove, one value per dimension (powers of two), as
// Triton's tl.multiple_of / max_contiguous / max_constancy: the axis analysis then vectorizes accesses through
// them (16-byte loads through offsets loaded from memory, say). Along each dimension, `runs` are aligned groups
// of that many elements. The interpreter checks every hint on every element, masked-off lanes too (a masked
// load's `other` must keep it: `load(indices + i, i < n, i)`), and reports a false one at its line; compiled code
// trusts them.

/// The first element of every run (every element, where values do not increase by one) is a multiple.
Tensor multiple_of(const Tensor &x, std::vector<int64_t> divisors, Loc loc = Loc::current());
/// Aligned runs of this many elements increase by 1.
Tensor max_contiguous(const Tensor &x, std::vector<int64_t> runs, Loc loc = Loc::current());
/// Aligned runs of this many elements are equal.
Tensor max_constancy(const Tensor &x, std::vector<int64_t> runs, Loc loc = Loc::current());
/// A condition promised true everywhere (llvm.assume on the GPU, which LLVM may use; checked by the interpreter).
void assume(const Operand &condition, Loc loc = Loc::current());

//===--- Inline PTX ----------------------------------------------------------------------===//

/// Runs `asmText` (PTX in LLVM's inline-assembly syntax: $0.. the results, then the operands) once per element
/// of the operands broadcast together, as Triton's inline_asm_elementwise: `constraints` is LLVM's ("=r,r,r": a
/// 32-bit result and two 32-bit operands; h 16-bit, r 32-bit, l 64-bit integer registers, f f32, d f64). Integer
/// literals are i32, floating ones f32. `pure` asm may be removed or merged like arithmetic; otherwise it stays,
/// ordered like a memory write. `pack` (1, 2, 4, 8, 16) elements go through one invocation: 8- and 16-bit elements
/// share 32-bit registers (as many as fit, the first in the lowest bits), wider ones take one register each, and
/// the constraints name every register, results' first. The PTX must treat elements position by position. The
/// interpreter cannot run PTX and says so at this line.
///   Tensor rotated = inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $1, $2;", "=r,r,r", {x, 8}, DType::I32);
///   Tensor h = inline_asm_elementwise("cvt.rn.f16x2.f32 $0, $2, $1;", "=r,r,r", {x}, DType::F16, true, 2);
Tensor inline_asm_elementwise(const std::string &asmText, const std::string &constraints,
                              const std::vector<Operand> &args, DType result, bool pure = true, int pack = 1,
                              Loc loc = Loc::current());
/// Several results per element (constraints "=r,=r,..."), one block each.
std::vector<Tensor> inline_asm_elementwise(const std::string &asmText, const std::string &constraints,
                                           const std::vector<Operand> &args, const std::vector<DType> &results,
                                           bool pure = true, int pack = 1, Loc loc = Loc::current());

//===--- Random numbers -------------------------------------------------------------===//

// Counter-based (Philox4x32, `rounds` rounds, as Triton's tl.randint/rand/randn): element i depends only on the
// seed and offsets[i], so programs draw independent streams by giving distinct offsets, and a kernel that
// recomputes a mask (dropout's backward pass) gets the same numbers again. Identical bit for bit on the GPU and
// the interpreter for randint and rand; randn goes through log, sqrt and cos (approximate on the GPU unless
// compiled without fast math). `seed` is an Int, a Long or an integer literal; `offsets` an i32 or i64 block.

/// Four blocks of 32 random bits each (as i32: negative values are the upper half).
std::array<Tensor, 4> randint4x(const Operand &seed, const Tensor &offsets, int rounds = 10, Loc loc = Loc::current());
/// The first of randint4x's blocks.
Tensor randint(const Operand &seed, const Tensor &offsets, int rounds = 10, Loc loc = Loc::current());
/// f32 uniform in [0, 1).
Tensor rand(const Operand &seed, const Tensor &offsets, int rounds = 10, Loc loc = Loc::current());
/// f32 standard normal (Box-Muller on two of randint4x's blocks).
Tensor randn(const Operand &seed, const Tensor &offsets, int rounds = 10, Loc loc = Loc::current());

//===--- Reductions and dot -------------------------------------------------------===//

/// Reductions along `axis`; reducing a 1-D block gives a scalar.
Tensor sum(const Tensor &x, int axis, Loc loc = Loc::current());
Tensor max(const Tensor &x, int axis, Loc loc = Loc::current());
Tensor min(const Tensor &x, int axis, Loc loc = Loc::current());
/// Index (i32) of the largest / smallest element along `axis`; the first one on ties.
Tensor argmax(const Tensor &x, int axis, Loc loc = Loc::current());
Tensor argmin(const Tensor &x, int axis, Loc loc = Loc::current());
/// Reduces with a combiner over two scalars of x's element type; it must be associative and commutative.
Tensor reduce(const Tensor &x, int axis, const std::function<Tensor(Tensor, Tensor)> &combine,
              Loc loc = Loc::current());

/// Inclusive scan along `axis` (reversed: from the end): result[i] = x[0] op x[1] op ... op x[i]. `combine` must be
/// associative (not necessarily commutative) and is called on scalars, the earlier elements first:
/// [](Tensor a, Tensor b) { return a + b; }.
Tensor associative_scan(const Tensor &x, int axis, const std::function<Tensor(Tensor, Tensor)> &combine,
                        bool reverse = false, Loc loc = Loc::current());
/// Several blocks of one shape scanned together: `combine` takes and returns one scalar per operand (an
/// argmax-style running maximum carries the value and its index).
std::vector<Tensor> associative_scan(const std::vector<Tensor> &xs, int axis,
                                     const std::function<std::vector<Tensor>(std::vector<Tensor>, std::vector<Tensor>)> &combine,
                                     bool reverse = false, Loc loc = Loc::current());
/// Running sums / products along `axis` (narrow types accumulate in i32 / f32, as sum does).
Tensor cumsum(const Tensor &x, int axis, bool reverse = false, Loc loc = Loc::current());
Tensor cumprod(const Tensor &x, int axis, bool reverse = false, Loc loc = Loc::current());

enum class Precision { IEEE, TF32, TF32x3 };
/// Matrix product a[M, K] * b[K, N] (+ acc[M, N]). f16/bf16/f32 accumulate in f32, i8 in i32. f32 inputs
/// become tf32 on tensor cores unless `precision` says otherwise (as in Triton): rounded to nearest by mma.sync,
/// truncated by sm_90a's wgmma (both operands along K), as in Triton; tf32x3 where that bias matters.
Tensor dot(const Tensor &a, const Tensor &b, Loc loc = Loc::current());
Tensor dot(const Tensor &a, const Tensor &b, const Tensor &acc, Loc loc = Loc::current());
Tensor dot(const Tensor &a, const Tensor &b, const Tensor &acc, Precision precision, Loc loc = Loc::current());
/// A promise to dot: the rows of a at or past `rows` (a scalar i32) are zero, as an MoE block's padding rows are.
/// Their products add nothing (b finite: zero times an infinity is NaN where a path computes it), so the compiler
/// may skip them: on wgmma a warpgroup whose 64 rows of an M tile all lie there issues no wgmma for that tile.
/// The result's rows at or past `rows` are then unspecified (a skipped tile's registers are not kept): read only
/// the rows below. The interpreter checks the promise (an error names the first nonzero element) and sets those
/// rows of a float result to NaN, so that a kernel reading them fails its tests.
struct ZeroRowsFrom {
  Operand rows;
};
Tensor dot(const Tensor &a, const Tensor &b, const Tensor &acc, ZeroRowsFrom zeroRows, Loc loc = Loc::current());

//===--- Control flow -------------------------------------------------------------===//

/// The handles a loop or branch may reassign: `carry(acc, a_ptrs)`, where a std::vector of handles stands for
/// each of its elements (`carry(accs, rowMax)`: one accumulator per block of columns). Inside the body they hold
/// the current iteration's values; after it, the final ones. A handle reassigned in a body but not carried must
/// not be used after it.
namespace detail {
template <class H> struct IsHandles : std::bool_constant<std::derived_from<H, Tensor>> {};
template <class H> struct IsHandles<std::vector<H>> : std::bool_constant<std::derived_from<H, Tensor>> {};
} // namespace detail
template <class H> concept Handles = detail::IsHandles<H>::value;

class Carry {
public:
  Carry() = default;
  template <Handles... H> explicit Carry(H &...handles) { (add(handles), ...); }
  const std::vector<Tensor *> &handles() const { return handles_; }

private:
  template <std::derived_from<Tensor> H> void add(H &handle) { handles_.push_back(&handle); }
  template <std::derived_from<Tensor> H> void add(std::vector<H> &many) {
    for (H &handle : many)
      handles_.push_back(&handle);
  }
  std::vector<Tensor *> handles_;
};
template <Handles... H> Carry carry(H &...handles) { return Carry(handles...); }

/// for (i = begin; i < end; i += step) body(i), with the carried handles as loop-carried values (scf.for).
void for_range(const Operand &begin, const Operand &end, const Operand &step, const Carry &carried,
               const std::function<void(Int)> &body, Loc loc = Loc::current());
void for_range(const Operand &begin, const Operand &end, const Operand &step,
               const std::function<void(Int)> &body, Loc loc = Loc::current());
/// if (condition) then(); else otherwise(); a carried handle gets the value of the branch taken (scf.if).
void if_(const Operand &condition, const Carry &carried, const std::function<void()> &then,
         const std::function<void()> &otherwise = {}, Loc loc = Loc::current());
void if_(const Operand &condition, const std::function<void()> &then, Loc loc = Loc::current());

//===--- Debugging ------------------------------------------------------------------===//

/// Traps with `message` when any element of `condition` is false.
void device_assert(const Operand &condition, const std::string &message, Loc loc = Loc::current());
/// Prints `prefix` and the values from every program.
void device_print(const std::string &prefix, const std::vector<Tensor> &values, Loc loc = Loc::current());

} // namespace brick

#endif // BRICK_DSL_OPS_H
