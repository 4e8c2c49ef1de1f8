#ifndef BRICK_ATTRS_TD
#define BRICK_ATTRS_TD

include "Brick/BrickDialect.td"
include "mlir/IR/EnumAttr.td"

def Brick_CacheModifier : I32EnumAttr<"CacheModifier", "PTX cache operator of a load or store", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"ca", 1>, I32EnumAttrCase<"cg", 2>, I32EnumAttrCase<"cs", 3>,
    I32EnumAttrCase<"lu", 4>, I32EnumAttrCase<"cv", 5>, I32EnumAttrCase<"wb", 6>, I32EnumAttrCase<"wt", 7>]> {
  let cppNamespace = "::mlir::brick";
}

def Brick_EvictionPolicy : I32EnumAttr<"EvictionPolicy", "L1/L2 eviction priority of a memory access", [
    I32EnumAttrCase<"normal", 0>, I32EnumAttrCase<"evict_first", 1>, I32EnumAttrCase<"evict_last", 2>]> {
  let cppNamespace = "::mlir::brick";
}

def Brick_InputPrecision : I32EnumAttr<"InputPrecision", "How a dot rounds float32 inputs", [
    I32EnumAttrCase<"ieee", 0>, I32EnumAttrCase<"tf32", 1>, I32EnumAttrCase<"tf32x3", 2>]> {
  let cppNamespace = "::mlir::brick";
}

def Brick_RMWOp : I32EnumAttr<"RMWOp", "Read-modify-write operation of an atomic", [
    I32EnumAttrCase<"and_", 0, "and">, I32EnumAttrCase<"or_", 1, "or">, I32EnumAttrCase<"xor_", 2, "xor">,
    I32EnumAttrCase<"add", 3>, I32EnumAttrCase<"fadd", 4>, I32EnumAttrCase<"max", 5>, I32EnumAttrCase<"min", 6>,
    I32EnumAttrCase<"umax", 7>, I32EnumAttrCase<"umin", 8>, I32EnumAttrCase<"xchg", 9>]> {
  let cppNamespace = "::mlir::brick";
}

def Brick_MemSemantic : I32EnumAttr<"MemSemantic", "Memory ordering of an atomic", [
    I32EnumAttrCase<"relaxed", 0>, I32EnumAttrCase<"acquire", 1>, I32EnumAttrCase<"release", 2>,
    I32EnumAttrCase<"acq_rel", 3>]> {
  let cppNamespace = "::mlir::brick";
}

def Brick_MemScope : I32EnumAttr<"MemScope", "Which threads an atomic is atomic with respect to", [
    I32EnumAttrCase<"gpu", 0>, I32EnumAttrCase<"cta", 1>, I32EnumAttrCase<"sys", 2>]> {
  let cppNamespace = "::mlir::brick";
}

#endif // BRICK_ATTRS_TD
