module {
  func.func @softmax(%arg0: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %arg1: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %arg2: i32 {brick.divisibility = 16 : i32}, %arg3: i32 {brick.divisibility = 16 : i32}, %arg4: i32 {brick.divisibility = 16 : i32}) attributes {brick.kernel} {
    %0 = brick.program_id 0
    %1 = brick.make_range 0, 1024 : tensor<1024xi32>
    %2 = brick.splat %arg4 : tensor<1024xi32>
    %3 = arith.cmpi slt, %1, %2 : tensor<1024xi32>
    %4 = arith.muli %0, %arg2 : i32
    %5 = brick.addptr %arg1, %4 : !brick.ptr<f32>, i32
    %6 = brick.splat %5 : tensor<1024x!brick.ptr<f32>>
    %7 = brick.addptr %6, %1 : tensor<1024x!brick.ptr<f32>>, tensor<1024xi32>
    %cst = arith.constant 0xFF800000 : f32
    %8 = brick.splat %cst : tensor<1024xf32>
    %9 = brick.load %7, %3, %8 : tensor<1024x!brick.ptr<f32>>
    %10 = brick.reduce(%9) axis = 0 : (tensor<1024xf32>) -> f32 {
    ^bb0(%arg5: f32, %arg6: f32):
      %21 = arith.maxnumf %arg5, %arg6 : f32
      brick.reduce.return %21 : f32
    }
    %11 = brick.splat %10 : tensor<1024xf32>
    %12 = arith.subf %9, %11 : tensor<1024xf32>
    %13 = math.exp %12 : tensor<1024xf32>
    %14 = brick.reduce(%13) axis = 0 : (tensor<1024xf32>) -> f32 {
    ^bb0(%arg5: f32, %arg6: f32):
      %21 = arith.addf %arg5, %arg6 : f32
      brick.reduce.return %21 : f32
    }
    %15 = brick.splat %14 : tensor<1024xf32>
    %16 = arith.divf %13, %15 : tensor<1024xf32>
    %17 = arith.muli %0, %arg3 : i32
    %18 = brick.addptr %arg0, %17 : !brick.ptr<f32>, i32
    %19 = brick.splat %18 : tensor<1024x!brick.ptr<f32>>
    %20 = brick.addptr %19, %1 : tensor<1024x!brick.ptr<f32>>, tensor<1024xi32>
    brick.store %20, %16, %3 : tensor<1024x!brick.ptr<f32>>
    return
  }
}
