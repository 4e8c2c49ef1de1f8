#ifndef BRICK_OPS_TD
#define BRICK_OPS_TD

include "Brick/BrickDialect.td"
include "Brick/BrickTypes.td"
include "Brick/BrickAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

// Global memory, as the resource loads, stores and atomics read and write.
def Brick_GlobalMemory : Resource<"::mlir::brick::GlobalMemory">;

class Brick_Op<string mnemonic, list<Trait> traits = []> : Op<Brick_Dialect, mnemonic, traits>;

// The type a pointer-like value loads: f32 for !brick.ptr<f32>, tensor<4xf32> for tensor<4x!brick.ptr<f32>>.
class LoadedTypeOf<string ptr, string value>
    : TypesMatchWith<"type of '" # value # "' is what '" # ptr # "' points to", ptr, value,
                     "::mlir::brick::getPointeeTypeLike($_self)">;
// An i1 (block) of the shape of a pointer-like value.
class MaskTypeOf<string ptr, string mask>
    : TypesMatchWith<"'" # mask # "' is i1 of the shape of '" # ptr # "'", ptr, mask,
                     "::mlir::brick::getI1TypeLike($_self)">;

//===----------------------------------------------------------------------===//
// Program identity
//===----------------------------------------------------------------------===//

def Brick_ProgramIdOp : Brick_Op<"program_id", [Pure]> {
  let summary = "Index of this program along a grid axis";
  let description = [{
    `brick.program_id 0` is the index of the running program along grid axis 0 (`x`); axes 1 and 2 are `y`, `z`.
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Brick_NumProgramsOp : Brick_Op<"num_programs", [Pure]> {
  let summary = "Number of programs along a grid axis";
  let description = [{
    `brick.num_programs 0` is the grid's size along axis 0, 1 or 2 (CUDA's `gridDim`): a persistent kernel steps
    through its tiles by it.
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Brick_ClusterRankOp : Brick_Op<"cluster_rank", [Pure]> {
  let summary = "Index of this program in its cluster";
  let description = [{
    Programs launched in clusters of C (`LaunchOptions::clusterSize`; consecutive programs along grid axis 0)
    are numbered 0 to C - 1 in each cluster: `program_id(0) mod C`. Without clusters it is 0.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
}

def Brick_ClusterSizeOp : Brick_Op<"cluster_size", [Pure]> {
  let summary = "Programs per cluster (1 without clusters)";
  let description = [{
    `brick.cluster_size` is the launch's `LaunchOptions::clusterSize` (2, 4 or 8 on sm_90: thread block
    clusters), or 1 for a launch without clusters. With `brick.cluster_rank` it lets the programs of a cluster
    divide work, and blocks the cluster shares can be loaded once (`sharedByCluster`, TMA multicast).
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Making and reshaping blocks
//===----------------------------------------------------------------------===//

def Brick_MakeRangeOp : Brick_Op<"make_range", [Pure]> {
  let summary = "The block [start, end) of consecutive i32";
  let description = [{
    `brick.make_range 0, 128 : tensor<128xi32>` holds 0, 1, ..., 127. `end - start` is a power of two.
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs Brick_IntBlock:$result);
  let assemblyFormat = "$start `,` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The bounds as the signed i32 they are (the attribute accessors give them unsigned), widened so that
    /// `end - start` cannot wrap.
    int64_t getStartValue() { return static_cast<int32_t>(getStart()); }
    int64_t getEndValue() { return static_cast<int32_t>(getEnd()); }
  }];
}

def Brick_SplatOp : Brick_Op<"splat", [Pure,
    TypesMatchWith<"'src' is the element type of 'result'", "result", "src",
                   "::mlir::getElementTypeOrSelf($_self)">]> {
  let summary = "A block with every element equal to a scalar";
  let description = [{
    `brick.splat %s : tensor<128xf32>` broadcasts a scalar (a value, pointer or i1) to a block of the result's
    shape; a splat of a constant folds to a dense constant.
  }];
  let arguments = (ins Brick_Scalar:$src);
  let results = (outs Brick_Block:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Brick_BroadcastOp : Brick_Op<"broadcast", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Repeat a block along its dimensions of size 1";
  let description = [{
    `brick.broadcast %x : tensor<1x128xf32> -> tensor<64x128xf32>`: the ranks match and every dimension of the
    source either equals the result's or is 1. (Rank changes are `expand_dims`; scalars use `splat`.)
  }];
  let arguments = (ins Brick_Block:$src);
  let results = (outs Brick_Block:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Brick_ExpandDimsOp : Brick_Op<"expand_dims", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Insert a dimension of size 1";
  let description = [{
    `brick.expand_dims %x {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>`; NumPy's `x[:, None]`.
  }];
  let arguments = (ins Brick_Block:$src, I32Attr:$axis);
  let results = (outs Brick_Block:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Brick_ReshapeOp : Brick_Op<"reshape", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Reinterpret a block with another shape of the same number of elements (row-major)";
  let description = [{
    `brick.reshape %x : tensor<4x32xf32> -> tensor<128xf32>` keeps the elements in row-major order; the verifier
    refuses a shape with a different number of elements. A reshape of a reshape becomes one; of a splat, a splat.
  }];
  let arguments = (ins Brick_Block:$src);
  let results = (outs Brick_Block:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Brick_TransOp : Brick_Op<"trans", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Permute the dimensions of a block";
  let description = [{
    `brick.trans %x [1, 0] : tensor<16x32xf16> -> tensor<32x16xf16>`: result dimension `i` is source
    dimension `order[i]`.
  }];
  let arguments = (ins Brick_Block:$src, DenseI32ArrayAttr:$order);
  let results = (outs Brick_Block:$result);
  let assemblyFormat = "$src $order attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Brick_GatherOp : Brick_Op<"gather", [Pure]> {
  let summary = "Take elements of a block along an axis at given indices";
  let description = [{
    `result[i][j] = src[indices[i][j]][j]` for `axis = 0` (as Triton's `gather`): the result has the indices'
    shape, which is the source's but along `axis`, and the source's element type. An index outside
    `[0, size of axis)` is undefined on the GPU and an error on the interpreter.
    ```mlir
    %g = brick.gather %x[%idx] axis = 1 : (tensor<16x64xf32>, tensor<16x8xi32>) -> tensor<16x8xf32>
    ```
  }];
  let arguments = (ins Brick_Block:$src, Brick_IntBlock:$indices, I32Attr:$axis);
  let results = (outs Brick_Block:$result);
  let assemblyFormat = "$src `[` $indices `]` `axis` `=` $axis attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def Brick_AddPtrOp : Brick_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "Advance pointers by a number of elements";
  let description = [{
    `brick.addptr %p, %off : tensor<128x!brick.ptr<f32>>, tensor<128xi32>` advances each pointer by `off`
    elements (not bytes). Pointer and offset have the same shape.
  }];
  let arguments = (ins Brick_PtrLike:$ptr, Brick_IntLike:$offset);
  let results = (outs Brick_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

// Checks on optional operands test for their presence first: the generated code reads the operand's type.
def Brick_LoadOp : Brick_Op<"load", [AttrSizedOperandSegments,
    LoadedTypeOf<"ptr", "result">,
    TypesMatchWith<"'mask' is i1 of the shape of 'ptr'", "ptr", "mask",
                   "::mlir::brick::getI1TypeLike($_self)",
                   "!::llvm::cast<::mlir::brick::LoadOp>(&$_op).getMask() || std::equal_to<>()">,
    TypesMatchWith<"'other' has the type of 'result'", "ptr", "other",
                   "::mlir::brick::getPointeeTypeLike($_self)",
                   "!::llvm::cast<::mlir::brick::LoadOp>(&$_op).getOther() || std::equal_to<>()">,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Load a block through a block of pointers, under a mask";
  let description = [{
    `brick.load %ptrs, %mask, %other : tensor<128x!brick.ptr<f32>>` reads each element whose mask is true;
    where the mask is false nothing is read and the result is `other` (undefined when there is no `other`).
    `other` needs a `mask`. `cache` and `evict` pass PTX cache hints; `volatile` forbids caching and removal.
  }];
  let arguments = (ins
    Brick_PtrLike:$ptr,
    Optional<Brick_BoolLike>:$mask,
    Optional<Brick_Value>:$other,
    DefaultValuedAttr<Brick_CacheModifier, "::mlir::brick::CacheModifier::none">:$cache,
    DefaultValuedAttr<Brick_EvictionPolicy, "::mlir::brick::EvictionPolicy::normal">:$evict,
    UnitAttr:$isVolatile);
  let results = (outs Brick_Value:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)?
    oilist(`cache` `=` $cache | `evict` `=` $evict | `volatile` $isVolatile)
    attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Brick_StoreOp : Brick_Op<"store", [
    LoadedTypeOf<"ptr", "value">,
    TypesMatchWith<"'mask' is i1 of the shape of 'ptr'", "ptr", "mask",
                   "::mlir::brick::getI1TypeLike($_self)", "($_op.getOperands().size() <= 2) || std::equal_to<>()">,
    MemoryEffects<[MemWrite<Brick_GlobalMemory>]>]> {
  let summary = "Store a block through a block of pointers, under a mask";
  let description = [{
    `brick.store %ptrs, %values, %mask : tensor<128x!brick.ptr<f32>>` writes each element whose mask is true and
    touches nothing where it is false (no mask: every element). Where two elements of one store name the same
    address, which one lands is unspecified. `cache` and `evict` pass PTX cache hints. A store under an all-false
    constant mask is removed.
  }];
  let arguments = (ins
    Brick_PtrLike:$ptr,
    Brick_Value:$value,
    Optional<Brick_BoolLike>:$mask,
    DefaultValuedAttr<Brick_CacheModifier, "::mlir::brick::CacheModifier::none">:$cache,
    DefaultValuedAttr<Brick_EvictionPolicy, "::mlir::brick::EvictionPolicy::normal">:$evict);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)?
    oilist(`cache` `=` $cache | `evict` `=` $evict)
    attr-dict `:` type($ptr)
  }];
  let hasCanonicalizer = 1;
}

def Brick_AtomicRMWOp : Brick_Op<"atomic_rmw", [
    LoadedTypeOf<"ptr", "val">, LoadedTypeOf<"ptr", "result">,
    TypesMatchWith<"'mask' is i1 of the shape of 'ptr'", "ptr", "mask",
                   "::mlir::brick::getI1TypeLike($_self)", "($_op.getOperands().size() <= 2) || std::equal_to<>()">,
    MemoryEffects<[MemRead<Brick_GlobalMemory>, MemWrite<Brick_GlobalMemory>]>]> {
  let summary = "Atomic read-modify-write of each element; returns the old values";
  let description = [{
    `brick.atomic_rmw fadd, relaxed, gpu, %ptrs, %val, %mask : tensor<128x!brick.ptr<f32>>` combines `val` into
    each element whose mask is true (`add`, `and`, `or`, `xor`, `umax`, `umin` on integers; `fadd` on floats;
    `max`, `min` and `xchg` on either) and returns the values read; masked-off elements are neither read nor
    written. `sem` and `scope` are as for `brick.atomic_cas`.
  }];
  let arguments = (ins Brick_RMWOp:$rmw, Brick_MemSemantic:$sem, Brick_MemScope:$scope,
                       Brick_PtrLike:$ptr, Brick_Value:$val, Optional<Brick_BoolLike>:$mask);
  let results = (outs Brick_Value:$result);
  let assemblyFormat = "$rmw `,` $sem `,` $scope `,` $ptr `,` $val (`,` $mask^)? attr-dict `:` type($ptr)";
  let hasVerifier = 1;
}

def Brick_AtomicCASOp : Brick_Op<"atomic_cas", [
    LoadedTypeOf<"ptr", "cmp">, LoadedTypeOf<"ptr", "val">, LoadedTypeOf<"ptr", "result">,
    MemoryEffects<[MemRead<Brick_GlobalMemory>, MemWrite<Brick_GlobalMemory>]>]> {
  let summary = "Atomic compare-and-swap of each element; returns the old values";
  let description = [{
    `brick.atomic_cas acq_rel, gpu, %ptrs, %cmp, %val : tensor<64x!brick.ptr<i32>>`: for each element, atomically,
    if `*ptr == cmp` then `*ptr = val`; the result is the value read. Elements of 16, 32 or 64 bits; `sem` orders
    the access as relaxed, acquire, release or acq_rel, and `scope` says which threads it is atomic with respect to
    (`cta`, `gpu` or `sys`). On a scalar pointer the old value cannot be used yet (use a one-element block).
  }];
  let arguments = (ins Brick_MemSemantic:$sem, Brick_MemScope:$scope,
                       Brick_PtrLike:$ptr, Brick_Value:$cmp, Brick_Value:$val);
  let results = (outs Brick_Value:$result);
  let assemblyFormat = "$sem `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:` type($ptr)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Brick_DotOp : Brick_Op<"dot", [Pure, AllTypesMatch<["c", "d"]>]> {
  let summary = "Matrix product with accumulator: d = a * b + c";
  let description = [{
    `brick.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>`.
    `a` and `b` have the same element type (f16, bf16, f32 or i8); the accumulator is f32 (f16 for f16 inputs
    also allowed) or i32 for i8. `inputPrecision` says how f32 inputs round (tf32 uses tensor cores);
    `maxNumImpreciseAcc` bounds how many products an fp8 accumulation may add before rounding.
    `zero_rows_from %n` (2-D dots) promises that the rows of `a` at or past `n` are zero (an MoE block's padding
    rows): their products add nothing (with `b` finite), so the compiler may skip them (on wgmma, a warpgroup
    whose 64 rows of an M tile all lie there issues no wgmma for that tile), and the result's rows at or past `n`
    are unspecified. The interpreter checks the promise and sets those rows of a float result to NaN.
  }];
  let arguments = (ins Brick_Block:$a, Brick_Block:$b, Brick_Block:$c, Optional<I32>:$zeroRowsFrom,
                       DefaultValuedAttr<Brick_InputPrecision, "::mlir::brick::InputPrecision::ieee">:$inputPrecision,
                       DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc);
  let results = (outs Brick_Block:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`zero_rows_from` $zeroRowsFrom^)?
    oilist(`inputPrecision` `=` $inputPrecision | `maxNumImpreciseAcc` `=` $maxNumImpreciseAcc)
    attr-dict `:` type($a) `*` type($b) `->` type($d)
  }];
  let hasVerifier = 1;
}

def Brick_ReduceOp : Brick_Op<"reduce", [RecursiveMemoryEffects, SingleBlock]> {
  let summary = "Reduce blocks along an axis with a combiner region";
  let description = [{
    Reduces N blocks of one shape together along `axis`; the combiner takes 2N scalars (the N accumulated
    values, then the N new ones) and yields N with `brick.reduce.return`. Reducing a 1-D block gives scalars.
    ```mlir
    %m = brick.reduce(%x) axis = 0 : (tensor<128xf32>) -> f32 {
    ^bb0(%a: f32, %b: f32):
      %0 = arith.maxnumf %a, %b : f32
      brick.reduce.return %0 : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Brick_Block>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<Brick_Value>:$results);
  let regions = (region SizedRegion<1>:$combiner);
  let assemblyFormat = "`(` $srcs `)` `axis` `=` $axis attr-dict `:` functional-type($srcs, $results) $combiner";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The shape every result has: the sources' shape with `axis` removed (empty: scalars).
    ::llvm::SmallVector<int64_t> getResultShape();
  }];
}

def Brick_ReduceReturnOp : Brick_Op<"reduce.return", [Pure, Terminator, ReturnLike, HasParent<"ReduceOp">]> {
  let summary = "Yield the combined values of a reduce combiner";
  let description = [{
    Ends `brick.reduce`'s combiner region: one scalar per reduced operand, the combination of the region's two
    arguments per operand. The combiner must be associative and commutative: the lowering combines in a tree
    whose order depends on the layout.
  }];
  let arguments = (ins Variadic<Brick_Scalar>:$results);
  let assemblyFormat = "$results attr-dict `:` type($results)";
}

def Brick_ScanOp : Brick_Op<"scan", [RecursiveMemoryEffects, SingleBlock]> {
  let summary = "Inclusive scan of blocks along an axis with an associative combiner region";
  let description = [{
    Scans N blocks of one shape together along `axis`: element i of each result combines elements 0..i of the
    sources in order (`reverse`: elements i..end, from the end), `combine(accumulated, next)`. The combiner takes
    2N scalars (the N accumulated values, then the N next ones) and yields N with `brick.scan.return`; it must be
    associative (the GPU combines in a tree), not commutative: the order of operands is kept.
    ```mlir
    %c = brick.scan(%x) axis = 0 reverse = false : (tensor<128xf32>) -> tensor<128xf32> {
    ^bb0(%a: f32, %b: f32):
      %0 = arith.addf %a, %b : f32
      brick.scan.return %0 : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Brick_Block>:$srcs, I32Attr:$axis, BoolAttr:$reverse);
  let results = (outs Variadic<Brick_Block>:$results);
  let regions = (region SizedRegion<1>:$combiner);
  let assemblyFormat = [{
    `(` $srcs `)` `axis` `=` $axis `reverse` `=` $reverse attr-dict `:` functional-type($srcs, $results) $combiner
  }];
  let hasRegionVerifier = 1;
}

def Brick_ScanReturnOp : Brick_Op<"scan.return", [Pure, Terminator, ReturnLike, HasParent<"ScanOp">]> {
  let summary = "Yield the combined values of a scan combiner";
  let description = [{
    Ends `brick.scan`'s combiner region: one scalar per scanned operand, the running value combined with the next
    element. The combiner must be associative (the scan is computed as a tree); it need not be commutative, as the
    operands keep their order.
  }];
  let arguments = (ins Variadic<Brick_Scalar>:$results);
  let assemblyFormat = "$results attr-dict `:` type($results)";
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def Brick_AssertOp : Brick_Op<"assert", [MemoryEffects<[MemWrite<Brick_GlobalMemory>]>]> {
  let summary = "Trap, printing a message, when any element of a condition is false";
  let description = [{
    `brick.assert %ok, "n must be positive" : tensor<128xi1>` checks every element of the condition (a scalar or a
    block). On the GPU a program where any is false calls `__assertfail` with the message, the kernel's name and
    the source file and line of the op's location, and the launch fails; the interpreter reports the message and
    the first failing element.
  }];
  let arguments = (ins Brick_BoolLike:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict `:` type($condition)";
}

def Brick_HintOp : Brick_Op<"hint", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "What the programmer knows of an integer block and the compiler cannot prove";
  let description = [{
    The value itself, with facts for the axis analysis (brick/Analysis/AxisInfo.h), one number per dimension (a
    scalar has one): `divisibility` (the first element of each run along the dimension, every element where
    there are no runs, is a multiple of it), `contiguity` (aligned runs of that many elements along the
    dimension increase by 1), `constancy` (aligned runs of that many elements are equal). They unlock what the
    analysis cannot prove, such as 16-byte accesses through offsets loaded from memory. The interpreter checks
    them and reports a false one at the op's location; compiled code trusts them.

    ```mlir
    %offsets = brick.hint %x {contiguity = array<i64: 128>, divisibility = array<i64: 16>} : tensor<128xi32>
    ```
  }];
  let arguments = (ins Brick_IntLike:$src, OptionalAttr<DenseI64ArrayAttr>:$divisibility,
                       OptionalAttr<DenseI64ArrayAttr>:$contiguity, OptionalAttr<DenseI64ArrayAttr>:$constancy);
  let results = (outs Brick_IntLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Brick_AssumeOp : Brick_Op<"assume", [MemoryEffects<[MemWrite<Brick_GlobalMemory>]>]> {
  let summary = "A condition the programmer promises is true (llvm.assume on the GPU; checked by the interpreter)";
  let description = [{
    `brick.assume %c : i1` lets the compiler rely on the condition (`llvm.assume` of it on the GPU, e.g. that a size
    is positive or a multiple of 16); the code does not check it, so a false promise is undefined behaviour there.
    The interpreter checks it and fails the launch naming the op. A block condition promises every element.
  }];
  let arguments = (ins Brick_BoolLike:$condition);
  let assemblyFormat = "$condition attr-dict `:` type($condition)";
}

def Brick_InlineAsmElementwiseOp : Brick_Op<"inline_asm_elementwise", [
    Elementwise, SameOperandsAndResultShape, DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "PTX written by the programmer, run once per element of its operands (Triton's inline_asm_elementwise)";
  let description = [{
    `asm_string` is PTX in LLVM's inline-assembly syntax (`$0` the first result, then the results' and operands'
    registers in order), `constraints` LLVM's constraint string (`"=r,r,r"`: one output, two 32-bit inputs). All
    operands and results have one shape (scalars or blocks); each element's values go through the assembly once.
    `pure` lets the compiler remove and merge it like arithmetic; otherwise it is kept and ordered as a write to
    memory. `pack` (1, 2, 4, 8 or 16) is how many elements one invocation handles, as Triton's: 8- and 16-bit
    values share 32-bit registers (as many as fit, up to `pack`; the first element in the lowest bits), wider
    ones take a register each, so the constraints name, per result and then per operand, `pack / elementsPerRegister`
    registers. The assembly must treat its elements position by position (element j of each operand gives element
    j of each result): which elements of a thread share an invocation is the compiler's choice, and a thread whose
    elements do not fill the last invocation pads it with zeros and drops what comes out for the padding. The
    interpreter cannot run PTX and says so.

    ```mlir
    %r = brick.inline_asm_elementwise "shf.l.wrap.b32 $0, $1, $1, $2;" "=r,r,r" pure %x, %n : tensor<64xi32>, i32 -> tensor<64xi32>
    ```
  }];
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints, UnitAttr:$pure,
                       DefaultValuedAttr<I32Attr, "1">:$pack, Variadic<Brick_Value>:$args);
  let results = (outs Variadic<Brick_Value>:$results);
  let assemblyFormat = [{
    $asm_string $constraints (`pure` $pure^)? ($args^)? attr-dict `:` functional-type($args, $results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// How many elements of type `elementType` share one register when an invocation handles `pack` of them.
    static int64_t elementsPerRegister(::mlir::Type elementType, int64_t pack);
    /// How many registers (constraints) one invocation has for a value of `elementType`.
    static int64_t registersPerInvocation(::mlir::Type elementType, int64_t pack) {
      return pack / elementsPerRegister(elementType, pack);
    }
    /// The constraint count the op's results and operands need: {outputs, inputs}.
    std::pair<int64_t, int64_t> expectedConstraintCounts();
  }];
}

def Brick_PrintOp : Brick_Op<"print", [MemoryEffects<[MemWrite<Brick_GlobalMemory>]>]> {
  let summary = "Print a prefix and the elements of scalars or blocks from every program";
  let description = [{
    `brick.print "x = " %x : tensor<4xf32>` prints, from every program, the prefix and each element of each
    argument with its program id and index (`hex` prints integers in hexadecimal). With no arguments the prefix is
    printed once per program. On the GPU it goes through `vprintf`, whose buffer the driver flushes when the host
    synchronizes; the interpreter prints the same lines.
  }];
  let arguments = (ins StrAttr:$prefix, UnitAttr:$hex, Variadic<Brick_Value>:$args);
  let assemblyFormat = "$prefix (`hex` $hex^)? attr-dict ($args^ `:` type($args))?";
}

def Brick_MakeTensorDescriptorOp : Brick_Op<"make_tensor_descriptor", [Pure, SameVariadicOperandSize]> {
  let summary = "A tensor descriptor from a base pointer, a shape, strides (in elements) and its tensor map";
  let description = [{
    `brick.make_tensor_descriptor %base, [%rows, %cols], [%rowStride, %colStride], %map :
    !brick.ptr<f16> -> !brick.tensordesc<128x64xf16>`. One shape entry (i32) and one stride (i64) per dimension
    of the block shape; element (i, j) is at `base + i * rowStride + j * colStride`.
  }];
  let arguments = (ins Brick_Ptr:$base, Variadic<I32>:$shape, Variadic<I64>:$strides, Brick_TensorMapType:$map);
  let results = (outs Brick_TensorDescType:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` `,` $map attr-dict `:` qualified(type($base)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Brick_DescriptorLoadOp : Brick_Op<"descriptor_load", [MemoryEffects<[MemRead]>, AttrSizedOperandSegments]> {
  let summary = "Read the block of a tensor descriptor whose first element is at `indices`";
  let description = [{
    `brick.descriptor_load %desc[%i, %j] : !brick.tensordesc<128x64xf16> -> tensor<128x64xf16>` reads elements
    (i + r, j + c) for r < 128, c < 64; elements outside the tensor (any coordinate below 0 or at or past the
    shape) read as zero.

    With `shared_by_cluster %s`, the program promises that every program of its cluster runs the loops around
    it as many times, and that where `%s` holds (on all programs of the cluster or on none) they all read the
    same block here. A
    warp-specialized K loop on sm_90a then has each program copy a share of the block and TMA multicast it to
    the whole cluster. Anywhere else each program reads the block itself: the result is the same.
  }];
  let arguments = (ins Brick_TensorDescType:$desc, Variadic<I32>:$indices, Optional<I1>:$sharedByCluster);
  let results = (outs Brick_Block:$result);
  let assemblyFormat = [{
    $desc `[` $indices `]` (`shared_by_cluster` $sharedByCluster^)? attr-dict `:` qualified(type($desc)) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Brick_ClusterSharedOp : Brick_Op<"cluster_shared", [MemoryEffects<[MemWrite<Brick_GlobalMemory>]>]> {
  let summary = "A descriptor load's shared_by_cluster promise, for the interpreter to check";
  let description = [{
    `brick.cluster_shared %when [%i, %j]`: every program of this program's cluster reaches this op as many times,
    each time with the same `%when`, and where it holds with the same indices (the block a `brick.descriptor_load
    ... shared_by_cluster %when` read here: brick-lower-tensor-descriptors with `check-cluster-sharing` puts it in
    place of the promise). The interpreter reports a broken promise at the op's location, where the GPU would
    read wrong blocks or hang; no target lowers it.
  }];
  let arguments = (ins I1:$when, Variadic<I32>:$indices);
  let assemblyFormat = "$when `[` $indices `]` attr-dict";
}

def Brick_DescriptorStoreOp : Brick_Op<"descriptor_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "Write a block into a tensor descriptor's tensor at `indices`";
  let description = [{
    `brick.descriptor_store %desc[%i, %j], %x : !brick.tensordesc<128x64xf16>, tensor<128x64xf16>` writes the
    elements that fall inside the tensor and nothing else.
  }];
  let arguments = (ins Brick_TensorDescType:$desc, Variadic<I32>:$indices, Brick_Block:$value);
  let assemblyFormat = "$desc `[` $indices `]` `,` $value attr-dict `:` qualified(type($desc)) `,` type($value)";
  let hasVerifier = 1;
}

#endif // BRICK_OPS_TD
