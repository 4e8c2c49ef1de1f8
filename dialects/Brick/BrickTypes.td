#ifndef BRICK_TYPES_TD
#define BRICK_TYPES_TD

include "Brick/BrickDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Brick_TypeDef<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Brick_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Brick_PointerType : Brick_TypeDef<"Pointer", "ptr"> {
  let summary = "Pointer to an element in (by default, global) memory";
  let description = [{
    `!brick.ptr<f32>` points at an `f32` in global memory (address space 1). A tensor of pointers,
    `tensor<128x!brick.ptr<f32>>`, is how a block addresses memory: `brick.load` and `brick.store` take one.
  }];
  let parameters = (ins "::mlir::Type":$pointeeType, DefaultValuedParameter<"int", "1">:$addressSpace);
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType, CArg<"int", "1">:$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
  let skipDefaultBuilders = 1;
  let genVerifyDecl = 1;
}

def Brick_TensorDescType : Brick_TypeDef<"TensorDesc", "tensordesc"> {
  let summary = "A strided tensor in global memory, read and written a block at a time";
  let description = [{
    `!brick.tensordesc<128x64xf16>`: a tensor of `f16` in global memory (its base, its shape and its strides come
    with the value, from `brick.make_tensor_descriptor`), accessed in blocks of 128x64 elements. Reading a block
    that reaches past the tensor's edges gives zeros there; writing one writes only the elements inside. On
    sm_90a the compiler may move the blocks with TMA.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$blockShape, "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The block a load gives or a store takes.
    ::mlir::RankedTensorType getBlockType() const {
      return ::mlir::RankedTensorType::get(getBlockShape(), getElementType());
    }
  }];
}

def Brick_TensorMapType : Brick_TypeDef<"TensorMap", "tensormap"> {
  let summary = "The 128 bytes of a CUDA tensor map (CUtensorMap), passed to a kernel by value";
  let description = [{
    What TMA copies read the tensor's shape, strides and swizzle from. The runtime encodes it at launch
    (cuTensorMapEncodeTiled) for a `TensorDescriptor` argument; code that does not use TMA ignores it.
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints shared by the ops.
//===----------------------------------------------------------------------===//

def Brick_Ptr : Type<CPred<"::llvm::isa<::mlir::brick::PointerType>($_self)">, "pointer",
                     "::mlir::brick::PointerType">;
def Brick_Float : AnyTypeOf<[F16, BF16, F32, F64], "floating-point">;
def Brick_Int : AnyTypeOf<[I1, I8, I16, I32, I64], "integer">;
// 8-bit floats are kept and moved, converted (arith.extf, arith.truncf) and multiplied by dots, not computed with.
def Brick_Float8 : AnyTypeOf<[F8E4M3FN, F8E5M2], "8-bit float">;
def Brick_Scalar : AnyTypeOf<[Brick_Int, Brick_Float, Brick_Float8, Brick_Ptr], "scalar">;

// A block: a ranked tensor of rank 1 or more with a static, power-of-two shape (any encoding: brickgpu adds
// layouts).
class Brick_BlockOf<list<Type> allowed, string what>
    : Type<And<[TensorOf<allowed>.predicate,
                CPred<"::mlir::brick::isBlockShape(::llvm::cast<::mlir::RankedTensorType>($_self).getShape())">]>,
           "block of " # what # " (static power-of-two shape, rank >= 1)", "::mlir::RankedTensorType">;

def Brick_Block : Brick_BlockOf<[Brick_Scalar], "scalars or pointers">;
def Brick_IntBlock : Brick_BlockOf<[Brick_Int], "integers">;
def Brick_BoolBlock : Brick_BlockOf<[I1], "i1">;
def Brick_PtrBlock : Brick_BlockOf<[Brick_Ptr], "pointers">;
def Brick_FloatBlock : Brick_BlockOf<[Brick_Float], "floats">;

def Brick_Value : AnyTypeOf<[Brick_Scalar, Brick_Block], "scalar or block">;
def Brick_PtrLike : AnyTypeOf<[Brick_Ptr, Brick_PtrBlock], "pointer or block of pointers">;
def Brick_IntLike : AnyTypeOf<[Brick_Int, Brick_IntBlock], "integer or block of integers">;
def Brick_BoolLike : AnyTypeOf<[I1, Brick_BoolBlock], "i1 or block of i1">;
def Brick_NumericLike : AnyTypeOf<[Brick_Int, Brick_Float, Brick_IntBlock, Brick_FloatBlock],
                                  "number or block of numbers">;

#endif // BRICK_TYPES_TD
