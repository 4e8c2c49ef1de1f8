// An op with a summary and no description, and a pass with neither: check_ods_docs.py must name both.
include "mlir/IR/OpBase.td"
include "mlir/Pass/PassBase.td"

def Sample_Dialect : Dialect {
  let name = "sample";
  let summary = "A dialect for the checker's own test";
  let description = [{ Holds one documented op and one that is not. }];
}
def Sample_DocumentedOp : Op<Sample_Dialect, "documented"> {
  let summary = "Has both";
  let description = [{ Says what it does. }];
}
def Sample_BareOp : Op<Sample_Dialect, "bare"> {
  let summary = "Has a summary only";
}
def SampleBarePass : Pass<"sample-bare"> {}
