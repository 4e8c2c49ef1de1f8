// Every brick op rejects ill-formed IR with a message naming the operands, shapes and types at fault.
// RUN: brick-opt %s -split-input-file -verify-diagnostics

func.func @program_id_axis() {
  // expected-error @+1 {{attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %0 = brick.program_id 3
  return
}

// -----

func.func @num_programs_axis() {
  // expected-error @+1 {{whose maximum value is 2}}
  %0 = brick.num_programs 7
  return
}

// -----

// expected-error @+1 {{a brick pointer points to an integer, a float or a pointer, not 'tensor<4xf32>'}}
func.func @ptr_to_tensor(%p: !brick.ptr<tensor<4xf32>>) {
  return
}

// -----

func.func @make_range_empty() {
  // expected-error @+1 {{needs start < end, got [8, 8)}}
  %0 = brick.make_range 8, 8 : tensor<1xi32>
  return
}

// -----

func.func @make_range_not_pow2() {
  // expected-error @+1 {{length end - start = 3 is not a power of two}}
  %0 = brick.make_range 0, 3 : tensor<4xi32>
  return
}

// -----

func.func @make_range_result() {
  // expected-error @+1 {{result must be tensor<8xi32> for [0, 8), got 'tensor<16xi32>'}}
  %0 = brick.make_range 0, 8 : tensor<16xi32>
  return
}

// -----

func.func @block_not_pow2(%x: f32) {
  // expected-error @+1 {{'result' must be block of scalars or pointers (static power-of-two shape, rank >= 1), but got 'tensor<3xf32>'}}
  %0 = brick.splat %x : tensor<3xf32>
  return
}

// -----

func.func @splat_element(%x: f32) {
  // expected-error @+1 {{failed to verify that 'src' is the element type of 'result'}}
  %0 = "brick.splat"(%x) : (f32) -> tensor<4xi32>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<128xf32>) {
  // expected-error @+1 {{source 'tensor<128xf32>' and result 'tensor<4x128xf32>' differ in rank; insert dimensions with expand_dims first}}
  %0 = brick.broadcast %x : tensor<128xf32> -> tensor<4x128xf32>
  return
}

// -----

func.func @broadcast_dim(%x: tensor<2x128xf32>) {
  // expected-error @+1 {{cannot broadcast 'tensor<2x128xf32>' to 'tensor<64x128xf32>': dimension 0 is 2, neither 1 nor 64}}
  %0 = brick.broadcast %x : tensor<2x128xf32> -> tensor<64x128xf32>
  return
}

// -----

func.func @expand_dims_axis(%x: tensor<128xf32>) {
  // expected-error @+1 {{axis 2 is out of range [0, 1] for 'tensor<128xf32>'}}
  %0 = brick.expand_dims %x {axis = 2 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  return
}

// -----

func.func @expand_dims_shape(%x: tensor<128xf32>) {
  // expected-error @+1 {{inserting a unit dimension at axis 0 of 'tensor<128xf32>' gives shape [1, 128], but the result is 'tensor<128x1xf32>'}}
  %0 = brick.expand_dims %x {axis = 0 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<16x128xf32>) {
  // expected-error @+1 {{cannot reshape 'tensor<16x128xf32>' (2048 elements) to 'tensor<1024xf32>' (1024 elements)}}
  %0 = brick.reshape %x : tensor<16x128xf32> -> tensor<1024xf32>
  return
}

// -----

func.func @trans_order(%x: tensor<16x32xf32>) {
  // expected-error @+1 {{order [0, 0] is not a permutation of the 2 dimensions of 'tensor<16x32xf32>'}}
  %0 = brick.trans %x [0, 0] : tensor<16x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @trans_shape(%x: tensor<16x32xf32>) {
  // expected-error @+1 {{transposing 'tensor<16x32xf32>' gives shape [32, 16], but the result is 'tensor<16x32xf32>'}}
  %0 = brick.trans %x [1, 0] : tensor<16x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @addptr_shape(%p: tensor<128x!brick.ptr<f32>>, %o: tensor<64xi32>) {
  // expected-error @+1 {{pointer 'tensor<128x!brick.ptr<f32>>' and offset 'tensor<64xi32>' must have the same shape}}
  %0 = brick.addptr %p, %o : tensor<128x!brick.ptr<f32>>, tensor<64xi32>
  return
}

// -----

func.func @addptr_not_pointer(%p: tensor<128xi64>, %o: tensor<128xi32>) {
  // expected-error @+1 {{operand #0 must be pointer or block of pointers, but got 'tensor<128xi64>'}}
  %0 = "brick.addptr"(%p, %o) : (tensor<128xi64>, tensor<128xi32>) -> tensor<128xi64>
  return
}

// -----

func.func @load_other_without_mask(%p: tensor<4x!brick.ptr<f32>>, %o: tensor<4xf32>) {
  // expected-error @+1 {{has an 'other' value but no mask; 'other' only fills masked-off elements}}
  %0 = "brick.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<4x!brick.ptr<f32>>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @load_not_pointer(%p: tensor<4xf32>) {
  // expected-error @+1 {{'ptr' must be pointer or block of pointers, but got 'tensor<4xf32>'}}
  %0 = brick.load %p : tensor<4xf32>
  return
}

// -----

func.func @load_mask_shape(%p: tensor<4x!brick.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{failed to verify that 'mask' is i1 of the shape of 'ptr'}}
  %0 = "brick.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4x!brick.ptr<f32>>, tensor<8xi1>) -> tensor<4xf32>
  return
}

// -----

func.func @load_result(%p: tensor<4x!brick.ptr<f32>>) {
  // expected-error @+1 {{failed to verify that type of 'result' is what 'ptr' points to}}
  %0 = "brick.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x!brick.ptr<f32>>) -> tensor<4xf16>
  return
}

// -----

func.func @store_value(%p: tensor<4x!brick.ptr<f32>>, %v: tensor<4xf16>) {
  // expected-error @+1 {{failed to verify that type of 'value' is what 'ptr' points to}}
  "brick.store"(%p, %v) : (tensor<4x!brick.ptr<f32>>, tensor<4xf16>) -> ()
  return
}

// -----

func.func @store_mask(%p: tensor<4x!brick.ptr<f32>>, %v: tensor<4xf32>, %m: tensor<4xi32>) {
  // expected-error @+1 {{operand #2 must be i1 or block of i1, but got 'tensor<4xi32>'}}
  "brick.store"(%p, %v, %m) : (tensor<4x!brick.ptr<f32>>, tensor<4xf32>, tensor<4xi32>) -> ()
  return
}

// -----

func.func @atomic_fadd_int(%p: !brick.ptr<i32>, %v: i32) {
  // expected-error @+1 {{fadd needs floating-point elements, got 'i32'; use add for integers}}
  %0 = brick.atomic_rmw fadd, relaxed, gpu, %p, %v : !brick.ptr<i32>
  return
}

// -----

func.func @atomic_add_float(%p: !brick.ptr<f32>, %v: f32) {
  // expected-error @+1 {{add needs integer elements, got 'f32'; use fadd for floats}}
  %0 = brick.atomic_rmw add, relaxed, gpu, %p, %v : !brick.ptr<f32>
  return
}

// -----

func.func @atomic_width(%p: !brick.ptr<i8>, %v: i8) {
  // expected-error @+1 {{atomics work on 16-, 32- or 64-bit elements, got 'i8'}}
  %0 = brick.atomic_rmw max, relaxed, gpu, %p, %v : !brick.ptr<i8>
  return
}

// -----

func.func @atomic_f16_max(%p: !brick.ptr<f16>, %v: f16) {
  // expected-error @+1 {{16-bit atomics support only fadd, got max}}
  %0 = brick.atomic_rmw max, relaxed, gpu, %p, %v : !brick.ptr<f16>
  return
}

// -----

func.func @atomic_cas_width(%p: !brick.ptr<i8>, %v: i8) {
  // expected-error @+1 {{compare-and-swap works on 16-, 32- or 64-bit elements, got 'i8'}}
  %0 = brick.atomic_cas relaxed, gpu, %p, %v, %v : !brick.ptr<i8>
  return
}

// -----

func.func @dot_rank(%a: tensor<4x16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{needs 2-D operands, or 3-D ones with a leading batch dimension, got a: 'tensor<4x16x16xf16>', b: 'tensor<16x16xf16>', c: 'tensor<16x16xf32>'}}
  %0 = brick.dot %a, %b, %c : tensor<4x16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_zero_rows_batched(%a: tensor<2x16x16xf16>, %b: tensor<2x16x16xf16>, %c: tensor<2x16x16xf32>, %n: i32) {
  // expected-error @+1 {{zero_rows_from applies to 2-D dots only, got a: 'tensor<2x16x16xf16>'}}
  %0 = brick.dot %a, %b, %c zero_rows_from %n : tensor<2x16x16xf16> * tensor<2x16x16xf16> -> tensor<2x16x16xf32>
  return
}

// -----

func.func @dot_inner(%a: tensor<64x32xf16>, %b: tensor<16x128xf16>, %c: tensor<64x128xf32>) {
  // expected-error @+1 {{inner dimensions differ: a is 'tensor<64x32xf16>' (K = 32) but b is 'tensor<16x128xf16>' (K = 16)}}
  %0 = brick.dot %a, %b, %c : tensor<64x32xf16> * tensor<16x128xf16> -> tensor<64x128xf32>
  return
}

// -----

func.func @dot_acc_shape(%a: tensor<64x32xf16>, %b: tensor<32x128xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{accumulator 'tensor<64x64xf32>' must be 64x128 for a: 'tensor<64x32xf16>' and b: 'tensor<32x128xf16>'}}
  %0 = brick.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @dot_mixed(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{a and b must have the same element type, got 'f16' and 'bf16'}}
  %0 = brick.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc_type(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xbf16>) {
  // expected-error @+1 {{a 'bf16' dot accumulates in f32, not 'bf16'}}
  %0 = brick.dot %a, %b, %c : tensor<16x16xbf16> * tensor<16x16xbf16> -> tensor<16x16xbf16>
  return
}

// -----

func.func @dot_int_acc(%a: tensor<16x16xi8>, %b: tensor<16x16xi8>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{an i8 dot accumulates in i32, not 'f32'}}
  %0 = brick.dot %a, %b, %c : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_tf32_on_f16(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{inputPrecision = tf32 applies to f32 inputs only, got 'f16'}}
  %0 = brick.dot %a, %b, %c inputPrecision = tf32 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @reduce_axis(%x: tensor<64xf32>) {
  // expected-error @+1 {{axis 1 is out of range [0, 1) for 'tensor<64xf32>'}}
  %0 = brick.reduce(%x) axis = 1 : (tensor<64xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    brick.reduce.return %a : f32
  }
  return
}

// -----

func.func @reduce_result(%x: tensor<64x8xf32>) {
  // expected-error @+1 {{result 0 must be 'tensor<8xf32>' (operand 0 reduced along axis 0), got 'tensor<64xf32>'}}
  %0 = brick.reduce(%x) axis = 0 : (tensor<64x8xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    brick.reduce.return %a : f32
  }
  return
}

// -----

func.func @reduce_shapes(%x: tensor<64xf32>, %y: tensor<32xi32>) {
  // expected-error @+1 {{all blocks must have one shape: operand 0 is 'tensor<64xf32>' but operand 1 is 'tensor<32xi32>'}}
  %0:2 = brick.reduce(%x, %y) axis = 0 : (tensor<64xf32>, tensor<32xi32>) -> (f32, i32) {
  ^bb0(%a: f32, %b: i32, %c: f32, %d: i32):
    brick.reduce.return %a, %b : f32, i32
  }
  return
}

// -----

func.func @reduce_combiner_arity(%x: tensor<64xf32>) {
  // expected-error @+1 {{combiner takes 2 scalars (accumulated values, then new ones), got 3}}
  %0 = brick.reduce(%x) axis = 0 : (tensor<64xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32, %c: f32):
    brick.reduce.return %a : f32
  }
  return
}

// -----

func.func @reduce_combiner_type(%x: tensor<64xf32>) {
  // expected-error @+1 {{combiner argument 1 must be 'f32', got 'f16'}}
  %0 = brick.reduce(%x) axis = 0 : (tensor<64xf32>) -> f32 {
  ^bb0(%a: f32, %b: f16):
    brick.reduce.return %a : f32
  }
  return
}

// -----

func.func @reduce_return_count(%x: tensor<64xf32>) {
  %0 = brick.reduce(%x) axis = 0 : (tensor<64xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{returns 2 values; the reduce combines 1}}
    brick.reduce.return %a, %b : f32, f32
  }
  return
}

// -----

func.func @reduce_return_outside(%x: f32) {
  // expected-error @+1 {{expects parent op 'brick.reduce'}}
  brick.reduce.return %x : f32
}

// -----

func.func @scan_axis(%x: tensor<64xf32>) {
  // expected-error @+1 {{axis 1 is out of range [0, 1) for 'tensor<64xf32>'}}
  %0 = brick.scan(%x) axis = 1 reverse = false : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    brick.scan.return %s : f32
  }
  return
}

// -----

func.func @scan_result_type(%x: tensor<64xf32>) {
  // expected-error @+1 {{result 0 must have operand 0's type 'tensor<64xf32>', got 'tensor<64xf16>'}}
  %0 = brick.scan(%x) axis = 0 reverse = false : (tensor<64xf32>) -> tensor<64xf16> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    brick.scan.return %s : f32
  }
  return
}

// -----

func.func @scan_shapes(%x: tensor<64xf32>, %y: tensor<32xi32>) {
  // expected-error @+1 {{all blocks must have one shape: operand 0 is 'tensor<64xf32>' but operand 1 is 'tensor<32xi32>'}}
  %0:2 = brick.scan(%x, %y) axis = 0 reverse = false : (tensor<64xf32>, tensor<32xi32>) -> (tensor<64xf32>, tensor<32xi32>) {
  ^bb0(%a: f32, %i: i32, %b: f32, %j: i32):
    brick.scan.return %a, %i : f32, i32
  }
  return
}

// -----

func.func @scan_combiner(%x: tensor<64xf32>) {
  // expected-error @+1 {{combiner argument 1 must be 'f32', got 'i32'}}
  %0 = brick.scan(%x) axis = 0 reverse = false : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: i32):
    brick.scan.return %a : f32
  }
  return
}

// -----

func.func @scan_return(%x: tensor<64xf32>) {
  %0 = brick.scan(%x) axis = 0 reverse = false : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.constant 0 : i32
    // expected-error @+1 {{value 0 has type 'i32', expected 'f32'}}
    brick.scan.return %c : i32
  }
  return
}

// -----

func.func @scan_return_outside(%x: f32) {
  // expected-error @+1 {{expects parent op 'brick.scan'}}
  brick.scan.return %x : f32
}

// -----

func.func @assert_condition(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be i1 or block of i1, but got 'tensor<4xi32>'}}
  brick.assert %x, "not a condition" : tensor<4xi32>
  return
}

// -----

func.func @print_args(%x: tensor<3xf32>) {
  // expected-error @+1 {{operand #0 must be variadic of scalar or block, but got 'tensor<3xf32>'}}
  brick.print "x" %x : tensor<3xf32>
  return
}

// -----

func.func @f(%p: !brick.ptr<f16>, %m: i32, %s: i64, %map: !brick.tensormap) {
  // expected-error @+1 {{takes one shape entry and one stride per dimension of '!brick.tensordesc<64x32xf16>', got 1}}
  %d = brick.make_tensor_descriptor %p, [%m], [%s], %map : !brick.ptr<f16> -> !brick.tensordesc<64x32xf16>
  return
}

// -----

func.func @f(%p: !brick.ptr<f32>, %m: i32, %s: i64, %map: !brick.tensormap) {
  // expected-error @+1 {{a descriptor of 'f16' needs a pointer to it, got '!brick.ptr<f32>'}}
  %d = brick.make_tensor_descriptor %p, [%m, %m], [%s, %s], %map : !brick.ptr<f32> -> !brick.tensordesc<64x32xf16>
  return
}

// -----

func.func @f(%d: !brick.tensordesc<64x32xf16>, %i: i32) {
  // expected-error @+1 {{reads a 'tensor<64x32xf16>' from '!brick.tensordesc<64x32xf16>', not a 'tensor<32x64xf16>'}}
  %x = brick.descriptor_load %d[%i, %i] : !brick.tensordesc<64x32xf16> -> tensor<32x64xf16>
  return
}

// -----

func.func @f(%d: !brick.tensordesc<64x32xf16>, %i: i32, %x: tensor<64x32xf16>) {
  // expected-error @+1 {{takes one index per dimension of '!brick.tensordesc<64x32xf16>', got 1}}
  brick.descriptor_store %d[%i], %x : !brick.tensordesc<64x32xf16>, tensor<64x32xf16>
  return
}

// -----

// expected-error @+1 {{a tensor descriptor's block has a static power-of-two shape of rank 1 to 5}}
func.func @f(%d: !brick.tensordesc<64x48xf16>) {
  return
}

// -----

func.func @f(%x: tensor<16xi32>) {
  // expected-error @+1 {{states nothing: give divisibility, contiguity or constancy}}
  %h = brick.hint %x : tensor<16xi32>
  return
}

// -----

func.func @f(%x: tensor<8x16xi32>) {
  // expected-error @+1 {{divisibility has 1 entries; 'tensor<8x16xi32>' needs 2 (one per dimension; a scalar has one)}}
  %h = brick.hint %x {divisibility = array<i64: 16>} : tensor<8x16xi32>
  return
}

// -----

func.func @f(%x: tensor<16xi32>) {
  // expected-error @+1 {{divisibility 12 (dimension 0) is not a positive power of two}}
  %h = brick.hint %x {divisibility = array<i64: 12>} : tensor<16xi32>
  return
}

// -----

func.func @f(%x: tensor<16xi32>) {
  // expected-error @+1 {{contiguity 32 (dimension 0) is longer than the dimension 16}}
  %h = brick.hint %x {contiguity = array<i64: 32>} : tensor<16xi32>
  return
}

// -----

func.func @f(%x: tensor<16xf32>) {
  // expected-error @+1 {{operand #0 must be integer or block of integers}}
  %h = brick.hint %x {divisibility = array<i64: 16>} : tensor<16xf32>
  return
}

// -----

func.func @f(%x: tensor<16xi32>) {
  // expected-error @+1 {{constraints '=r,r' name 1 outputs and 1 inputs; its 1 results and 2 operands at pack 1 need 1 and 2}}
  %r = brick.inline_asm_elementwise "add.s32 $0, $1, $2;" "=r,r" pure %x, %x : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
  return
}

// -----

func.func @f(%x: tensor<16xi32>) {
  // expected-error @+1 {{pack 3 is not 1, 2, 4, 8 or 16 (elements per invocation)}}
  %r = brick.inline_asm_elementwise "mov.b32 $0, $1;" "=r,r" pure %x {pack = 3 : i32} : (tensor<16xi32>) -> tensor<16xi32>
  return
}

// -----

// Four i32 elements per invocation take four registers each way.
func.func @f(%x: tensor<16xi32>) {
  // expected-error @+1 {{constraints '=r,r' name 1 outputs and 1 inputs; its 1 results and 1 operands at pack 4 need 4 and 4}}
  %r = brick.inline_asm_elementwise "mov.b32 $0, $1;" "=r,r" pure %x {pack = 4 : i32} : (tensor<16xi32>) -> tensor<16xi32>
  return
}

// -----

// Four f16 elements share two registers; four f32 take four.
func.func @f(%x: tensor<16xf16>) {
  // expected-error @+1 {{constraints '=r,r,r' name 1 outputs and 2 inputs; its 1 results and 1 operands at pack 4 need 4 and 2}}
  %r = brick.inline_asm_elementwise "cvt.f32.f16 $0, $1;" "=r,r,r" pure %x {pack = 4 : i32} : (tensor<16xf16>) -> tensor<16xf32>
  return
}

// -----

func.func @f(%x: tensor<16xi32>, %y: tensor<8xi32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape}}
  %r = brick.inline_asm_elementwise "add.s32 $0, $1, $2;" "=r,r,r" pure %x, %y : (tensor<16xi32>, tensor<8xi32>) -> tensor<16xi32>
  return
}

// -----

func.func @gather_rank(%x: tensor<8x4xf32>, %i: tensor<8xi32>) {
  // expected-error @+1 {{indices 'tensor<8xi32>' must have the source's rank 2}}
  %0 = brick.gather %x[%i] axis = 0 : (tensor<8x4xf32>, tensor<8xi32>) -> tensor<8xf32>
  return
}

// -----

func.func @gather_shape(%x: tensor<8x4xf32>, %i: tensor<2x2xi32>) {
  // expected-error @+1 {{indices 'tensor<2x2xi32>' and source 'tensor<8x4xf32>' differ in dimension 1, which is not the axis 0}}
  %0 = brick.gather %x[%i] axis = 0 : (tensor<8x4xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @gather_result(%x: tensor<8x4xf32>, %i: tensor<2x4xi32>) {
  // expected-error @+1 {{result must be 'tensor<2x4xf32>' (the indices' shape, the source's elements), got 'tensor<2x4xi32>'}}
  %0 = brick.gather %x[%i] axis = 0 : (tensor<8x4xf32>, tensor<2x4xi32>) -> tensor<2x4xi32>
  return
}

// -----

func.func @gather_axis(%x: tensor<8x4xf32>, %i: tensor<8x4xi32>) {
  // expected-error @+1 {{axis 2 is out of range [0, 2) for 'tensor<8x4xf32>'}}
  %0 = brick.gather %x[%i] axis = 2 : (tensor<8x4xf32>, tensor<8x4xi32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @reduce_combiner_stores(%x: tensor<64xf32>, %p: !brick.ptr<f32>) {
  // expected-error @+1 {{combiner must not write memory (store, atomics, print)}}
  %0 = brick.reduce(%x) axis = 0 : (tensor<64xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    brick.store %p, %a : !brick.ptr<f32>
    %s = arith.addf %a, %b : f32
    brick.reduce.return %s : f32
  }
  return
}

// -----

func.func @scan_combiner_prints(%x: tensor<64xi32>) {
  // expected-error @+1 {{combiner must not write memory (store, atomics, print)}}
  %0 = brick.scan(%x) axis = 0 reverse = false : (tensor<64xi32>) -> tensor<64xi32> {
  ^bb0(%a: i32, %b: i32):
    brick.print "a = " %a : i32
    %s = arith.addi %a, %b : i32
    brick.scan.return %s : i32
  }
  return
}

// -----

func.func @atomic_max_f32(%p: !brick.ptr<f32>, %v: f32) {
  // expected-error @+1 {{max on floating-point elements ('f32') has no GPU atomic; use atomic_cas in a loop, or max/min on integers}}
  %0 = brick.atomic_rmw max, relaxed, gpu, %p, %v : !brick.ptr<f32>
  return
}

// -----

func.func @scalar_atomic_old_value(%p: !brick.ptr<i32>, %v: i32, %out: !brick.ptr<i32>) {
  // expected-error @+1 {{the old value of an atomic on a scalar pointer cannot be used yet}}
  %0 = brick.atomic_cas relaxed, gpu, %p, %v, %v : !brick.ptr<i32>
  brick.store %out, %0 : !brick.ptr<i32>
  return
}
