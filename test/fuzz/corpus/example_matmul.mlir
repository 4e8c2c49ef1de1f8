module {
  func.func @matmul(%arg0: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %arg1: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %arg2: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %arg3: i32 {brick.divisibility = 16 : i32}, %arg4: i32 {brick.divisibility = 16 : i32}, %arg5: i32 {brick.divisibility = 16 : i32}, %arg6: i32 {brick.divisibility = 16 : i32}, %arg7: i32, %arg8: i32 {brick.divisibility = 16 : i32}, %arg9: i32, %arg10: i32 {brick.divisibility = 16 : i32}, %arg11: i32) attributes {brick.kernel} {
    %cst = arith.constant dense<32> : tensor<128x32xi32>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x32xf16>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<32x128xf16>
    %c31_i32 = arith.constant 31 : i32
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %c8_i32 = arith.constant 8 : i32
    %c1_i32 = arith.constant 1 : i32
    %c128_i32 = arith.constant 128 : i32
    %c127_i32 = arith.constant 127 : i32
    %0 = arith.addi %arg4, %c127_i32 : i32
    %1 = arith.divsi %0, %c128_i32 : i32
    %2 = arith.addi %arg3, %c127_i32 : i32
    %3 = arith.divsi %2, %c128_i32 : i32
    %4 = brick.program_id 0
    %5 = arith.muli %1, %c8_i32 : i32
    %6 = arith.divsi %4, %5 : i32
    %7 = arith.muli %6, %c8_i32 : i32
    %8 = arith.subi %3, %7 : i32
    %9 = arith.minsi %8, %c8_i32 : i32
    %10 = arith.remsi %4, %5 : i32
    %11 = arith.remsi %10, %9 : i32
    %12 = arith.addi %7, %11 : i32
    %13 = arith.divsi %10, %9 : i32
    %14 = brick.make_range 0, 128 : tensor<128xi32>
    %15 = arith.muli %12, %c128_i32 : i32
    %16 = brick.splat %15 : tensor<128xi32>
    %17 = arith.addi %16, %14 : tensor<128xi32>
    %18 = brick.splat %arg3 : tensor<128xi32>
    %19 = arith.remsi %17, %18 : tensor<128xi32>
    %20 = arith.muli %13, %c128_i32 : i32
    %21 = brick.splat %20 : tensor<128xi32>
    %22 = arith.addi %21, %14 : tensor<128xi32>
    %23 = brick.splat %arg4 : tensor<128xi32>
    %24 = arith.remsi %22, %23 : tensor<128xi32>
    %25 = brick.make_range 0, 32 : tensor<32xi32>
    %26 = brick.expand_dims %25 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %27 = brick.expand_dims %19 {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    %28 = brick.splat %arg6 : tensor<128x1xi32>
    %29 = arith.muli %27, %28 : tensor<128x1xi32>
    %30 = brick.splat %arg0 : tensor<128x1x!brick.ptr<f16>>
    %31 = brick.addptr %30, %29 : tensor<128x1x!brick.ptr<f16>>, tensor<128x1xi32>
    %32 = brick.broadcast %31 : tensor<128x1x!brick.ptr<f16>> -> tensor<128x32x!brick.ptr<f16>>
    %33 = brick.broadcast %26 : tensor<1x32xi32> -> tensor<128x32xi32>
    %34 = brick.addptr %32, %33 : tensor<128x32x!brick.ptr<f16>>, tensor<128x32xi32>
    %35 = brick.expand_dims %24 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %36 = brick.expand_dims %25 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %37 = brick.splat %arg8 : tensor<32x1xi32>
    %38 = arith.muli %36, %37 : tensor<32x1xi32>
    %39 = brick.splat %arg1 : tensor<32x1x!brick.ptr<f16>>
    %40 = brick.addptr %39, %38 : tensor<32x1x!brick.ptr<f16>>, tensor<32x1xi32>
    %41 = brick.broadcast %40 : tensor<32x1x!brick.ptr<f16>> -> tensor<32x128x!brick.ptr<f16>>
    %42 = brick.broadcast %35 : tensor<1x128xi32> -> tensor<32x128xi32>
    %43 = brick.addptr %41, %42 : tensor<32x128x!brick.ptr<f16>>, tensor<32x128xi32>
    %44 = arith.addi %arg5, %c31_i32 : i32
    %45 = arith.divsi %44, %c32_i32 : i32
    %46:3 = scf.for %arg12 = %c0_i32 to %45 step %c1_i32 iter_args(%arg13 = %cst_2, %arg14 = %34, %arg15 = %43) -> (tensor<128x128xf32>, tensor<128x32x!brick.ptr<f16>>, tensor<32x128x!brick.ptr<f16>>)  : i32 {
      %64 = arith.muli %arg12, %c32_i32 : i32
      %65 = arith.subi %arg5, %64 : i32
      %66 = brick.splat %65 : tensor<32x1xi32>
      %67 = arith.cmpi slt, %36, %66 : tensor<32x1xi32>
      %68 = brick.broadcast %67 : tensor<32x1xi1> -> tensor<32x128xi1>
      %69 = brick.load %arg15, %68, %cst_1 : tensor<32x128x!brick.ptr<f16>>
      %70 = brick.splat %65 : tensor<1x32xi32>
      %71 = arith.cmpi slt, %26, %70 : tensor<1x32xi32>
      %72 = brick.broadcast %71 : tensor<1x32xi1> -> tensor<128x32xi1>
      %73 = brick.load %arg14, %72, %cst_0 : tensor<128x32x!brick.ptr<f16>>
      %74 = brick.dot %73, %69, %arg13 : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
      %75 = brick.addptr %arg14, %cst : tensor<128x32x!brick.ptr<f16>>, tensor<128x32xi32>
      %76 = arith.muli %arg8, %c32_i32 : i32
      %77 = brick.splat %76 : tensor<32x128xi32>
      %78 = brick.addptr %arg15, %77 : tensor<32x128x!brick.ptr<f16>>, tensor<32x128xi32>
      scf.yield %74, %75, %78 : tensor<128x128xf32>, tensor<128x32x!brick.ptr<f16>>, tensor<32x128x!brick.ptr<f16>>
    }
    %47 = brick.expand_dims %22 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %48 = brick.splat %arg4 : tensor<1x128xi32>
    %49 = arith.cmpi slt, %47, %48 : tensor<1x128xi32>
    %50 = brick.expand_dims %17 {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    %51 = brick.splat %arg3 : tensor<128x1xi32>
    %52 = arith.cmpi slt, %50, %51 : tensor<128x1xi32>
    %53 = brick.broadcast %52 : tensor<128x1xi1> -> tensor<128x128xi1>
    %54 = brick.broadcast %49 : tensor<1x128xi1> -> tensor<128x128xi1>
    %55 = arith.andi %53, %54 : tensor<128x128xi1>
    %56 = brick.splat %arg10 : tensor<128x1xi32>
    %57 = arith.muli %50, %56 : tensor<128x1xi32>
    %58 = brick.splat %arg2 : tensor<128x1x!brick.ptr<f16>>
    %59 = brick.addptr %58, %57 : tensor<128x1x!brick.ptr<f16>>, tensor<128x1xi32>
    %60 = brick.broadcast %59 : tensor<128x1x!brick.ptr<f16>> -> tensor<128x128x!brick.ptr<f16>>
    %61 = brick.broadcast %47 : tensor<1x128xi32> -> tensor<128x128xi32>
    %62 = brick.addptr %60, %61 : tensor<128x128x!brick.ptr<f16>>, tensor<128x128xi32>
    %63 = arith.truncf %46#0 : tensor<128x128xf32> to tensor<128x128xf16>
    brick.store %62, %63, %55 : tensor<128x128x!brick.ptr<f16>>
    return
  }
}
