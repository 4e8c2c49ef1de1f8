module {
  func.func @vector_add(%arg0: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %arg1: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %arg2: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %arg3: i32 {brick.divisibility = 16 : i32}) attributes {brick.kernel} {
    %0 = brick.make_range 0, 1024 : tensor<1024xi32>
    %1 = brick.program_id 0
    %c1024_i32 = arith.constant 1024 : i32
    %2 = arith.muli %1, %c1024_i32 : i32
    %3 = brick.splat %2 : tensor<1024xi32>
    %4 = arith.addi %3, %0 : tensor<1024xi32>
    %5 = brick.splat %arg3 : tensor<1024xi32>
    %6 = arith.cmpi slt, %4, %5 : tensor<1024xi32>
    %7 = brick.splat %arg1 : tensor<1024x!brick.ptr<f32>>
    %8 = brick.addptr %7, %4 : tensor<1024x!brick.ptr<f32>>, tensor<1024xi32>
    %9 = brick.load %8, %6 : tensor<1024x!brick.ptr<f32>>
    %10 = brick.splat %arg0 : tensor<1024x!brick.ptr<f32>>
    %11 = brick.addptr %10, %4 : tensor<1024x!brick.ptr<f32>>, tensor<1024xi32>
    %12 = brick.load %11, %6 : tensor<1024x!brick.ptr<f32>>
    %13 = arith.addf %12, %9 : tensor<1024xf32>
    %14 = brick.splat %arg2 : tensor<1024x!brick.ptr<f32>>
    %15 = brick.addptr %14, %4 : tensor<1024x!brick.ptr<f32>>, tensor<1024xi32>
    brick.store %15, %13, %6 : tensor<1024x!brick.ptr<f32>>
    return
  }
}
