#ifndef BRICKGPU_TYPES_TD
#define BRICKGPU_TYPES_TD

include "BrickGPU/BrickGPUDialect.td"
include "mlir/IR/AttrTypeBase.td"

def BrickGPU_MemDescType : TypeDef<BrickGPU_Dialect, "MemDesc"> {
  let mnemonic = "memdesc";
  let summary = "A block held in shared memory";
  let description = [{ `!brickgpu.memdesc<64x32xf16, #brickgpu.shared<{...}>>` }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType, "::mlir::Attribute":$encoding);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    int64_t getNumElements() const;
  }];
  let genVerifyDecl = 1;
}

#endif // BRICKGPU_TYPES_TD
