// The axis-info analysis: contiguity, divisibility and constancy of integer and pointer blocks.

func.func @vector_add_addresses(%p: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %n: i32 {brick.divisibility = 16 : i32}) {
  %pid = brick.program_id 0
  %c1024 = arith.constant 1024 : i32
  %start = arith.muli %pid, %c1024 : i32
  %r = brick.make_range 0, 1024 : tensor<1024xi32>
  %s = brick.splat %start : tensor<1024xi32>
  %offs = arith.addi %s, %r : tensor<1024xi32>
  %ns = brick.splat %n : tensor<1024xi32>
  // A run of +1 compared with a multiple of 16 stays constant over 16 elements.
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %ps = brick.splat %p : tensor<1024x!brick.ptr<f32>>
  // Pointers: 1024 contiguous f32, the first of each run 16-byte aligned.
  %ptrs = brick.addptr %ps, %offs : tensor<1024x!brick.ptr<f32>>, tensor<1024xi32>
  return
}
