module {
  func.func @matmul(%arg0: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %arg1: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %arg2: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i32 {brick.divisibility = 16 : i32}, %arg7: i32, %arg8: i32 {brick.divisibility = 16 : i32}, %arg9: i32, %arg10: i32 {brick.divisibility = 16 : i32}, %arg11: i32) attributes {brick.kernel} {
    %c1_i32 = arith.constant 1 : i32
    %c1_i32_0 = arith.constant 1 : i32
    %c1_i32_1 = arith.constant 1 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = arith.addi %arg4, %c128_i32 : i32
    %c1_i32_2 = arith.constant 1 : i32
    %1 = arith.subi %0, %c1_i32_2 : i32
    %c128_i32_3 = arith.constant 128 : i32
    %2 = arith.divsi %1, %c128_i32_3 : i32
    %c128_i32_4 = arith.constant 128 : i32
    %3 = arith.addi %arg3, %c128_i32_4 : i32
    %c1_i32_5 = arith.constant 1 : i32
    %4 = arith.subi %3, %c1_i32_5 : i32
    %c128_i32_6 = arith.constant 128 : i32
    %5 = arith.divsi %4, %c128_i32_6 : i32
    %6 = brick.program_id 0
    %c8_i32 = arith.constant 8 : i32
    %7 = arith.muli %c8_i32, %2 : i32
    %8 = arith.divsi %6, %7 : i32
    %c8_i32_7 = arith.constant 8 : i32
    %9 = arith.muli %8, %c8_i32_7 : i32
    %10 = arith.subi %5, %9 : i32
    %c8_i32_8 = arith.constant 8 : i32
    %11 = arith.minsi %10, %c8_i32_8 : i32
    %12 = arith.remsi %6, %7 : i32
    %13 = arith.remsi %12, %11 : i32
    %14 = arith.addi %9, %13 : i32
    %15 = arith.divsi %12, %11 : i32
    %16 = brick.make_range 0, 128 : tensor<128xi32>
    %c128_i32_9 = arith.constant 128 : i32
    %17 = arith.muli %14, %c128_i32_9 : i32
    %18 = brick.splat %17 : tensor<128xi32>
    %19 = arith.addi %18, %16 : tensor<128xi32>
    %20 = brick.splat %arg3 : tensor<128xi32>
    %21 = arith.remsi %19, %20 : tensor<128xi32>
    %22 = brick.make_range 0, 128 : tensor<128xi32>
    %c128_i32_10 = arith.constant 128 : i32
    %23 = arith.muli %15, %c128_i32_10 : i32
    %24 = brick.splat %23 : tensor<128xi32>
    %25 = arith.addi %24, %22 : tensor<128xi32>
    %26 = brick.splat %arg4 : tensor<128xi32>
    %27 = arith.remsi %25, %26 : tensor<128xi32>
    %28 = brick.make_range 0, 64 : tensor<64xi32>
    %29 = brick.expand_dims %28 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %30 = brick.splat %c1_i32 : tensor<1x64xi32>
    %31 = arith.muli %29, %30 : tensor<1x64xi32>
    %32 = brick.expand_dims %21 {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    %33 = brick.splat %arg6 : tensor<128x1xi32>
    %34 = arith.muli %32, %33 : tensor<128x1xi32>
    %35 = brick.splat %arg0 : tensor<128x1x!brick.ptr<f16>>
    %36 = brick.addptr %35, %34 : tensor<128x1x!brick.ptr<f16>>, tensor<128x1xi32>
    %37 = brick.broadcast %36 : tensor<128x1x!brick.ptr<f16>> -> tensor<128x64x!brick.ptr<f16>>
    %38 = brick.broadcast %31 : tensor<1x64xi32> -> tensor<128x64xi32>
    %39 = brick.addptr %37, %38 : tensor<128x64x!brick.ptr<f16>>, tensor<128x64xi32>
    %40 = brick.expand_dims %27 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %41 = brick.splat %c1_i32_0 : tensor<1x128xi32>
    %42 = arith.muli %40, %41 : tensor<1x128xi32>
    %43 = brick.expand_dims %28 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %44 = brick.splat %arg8 : tensor<64x1xi32>
    %45 = arith.muli %43, %44 : tensor<64x1xi32>
    %46 = brick.splat %arg1 : tensor<64x1x!brick.ptr<f16>>
    %47 = brick.addptr %46, %45 : tensor<64x1x!brick.ptr<f16>>, tensor<64x1xi32>
    %48 = brick.broadcast %47 : tensor<64x1x!brick.ptr<f16>> -> tensor<64x128x!brick.ptr<f16>>
    %49 = brick.broadcast %42 : tensor<1x128xi32> -> tensor<64x128xi32>
    %50 = brick.addptr %48, %49 : tensor<64x128x!brick.ptr<f16>>, tensor<64x128xi32>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %c64_i32 = arith.constant 64 : i32
    %51 = arith.addi %arg5, %c64_i32 : i32
    %c1_i32_11 = arith.constant 1 : i32
    %52 = arith.subi %51, %c1_i32_11 : i32
    %c64_i32_12 = arith.constant 64 : i32
    %53 = arith.divsi %52, %c64_i32_12 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32_13 = arith.constant 1 : i32
    %54:3 = scf.for %arg12 = %c0_i32 to %53 step %c1_i32_13 iter_args(%arg13 = %cst, %arg14 = %39, %arg15 = %50) -> (tensor<128x128xf32>, tensor<128x64x!brick.ptr<f16>>, tensor<64x128x!brick.ptr<f16>>)  : i32 {
      %c64_i32_16 = arith.constant 64 : i32
      %84 = arith.muli %arg12, %c64_i32_16 : i32
      %85 = arith.subi %arg5, %84 : i32
      %86 = brick.expand_dims %28 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %87 = brick.splat %85 : tensor<64x1xi32>
      %88 = arith.cmpi slt, %86, %87 : tensor<64x1xi32>
      %89 = brick.broadcast %88 : tensor<64x1xi1> -> tensor<64x128xi1>
      %cst_17 = arith.constant 0.000000e+00 : f16
      %90 = brick.splat %cst_17 : tensor<64x128xf16>
      %91 = brick.load %arg15, %89, %90 : tensor<64x128x!brick.ptr<f16>>
      %92 = brick.expand_dims %28 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %93 = brick.splat %85 : tensor<1x64xi32>
      %94 = arith.cmpi slt, %92, %93 : tensor<1x64xi32>
      %95 = brick.broadcast %94 : tensor<1x64xi1> -> tensor<128x64xi1>
      %cst_18 = arith.constant 0.000000e+00 : f16
      %96 = brick.splat %cst_18 : tensor<128x64xf16>
      %97 = brick.load %arg14, %95, %96 : tensor<128x64x!brick.ptr<f16>>
      %98 = brick.dot %97, %91, %arg13 : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
      %c64_i32_19 = arith.constant 64 : i32
      %99 = arith.muli %c64_i32_19, %c1_i32 : i32
      %100 = brick.splat %99 : tensor<128x64xi32>
      %101 = brick.addptr %arg14, %100 : tensor<128x64x!brick.ptr<f16>>, tensor<128x64xi32>
      %c64_i32_20 = arith.constant 64 : i32
      %102 = arith.muli %c64_i32_20, %arg8 : i32
      %103 = brick.splat %102 : tensor<64x128xi32>
      %104 = brick.addptr %arg15, %103 : tensor<64x128x!brick.ptr<f16>>, tensor<64x128xi32>
      scf.yield %98, %101, %104 : tensor<128x128xf32>, tensor<128x64x!brick.ptr<f16>>, tensor<64x128x!brick.ptr<f16>>
    }
    %55 = brick.make_range 0, 128 : tensor<128xi32>
    %c128_i32_14 = arith.constant 128 : i32
    %56 = arith.muli %14, %c128_i32_14 : i32
    %57 = brick.splat %56 : tensor<128xi32>
    %58 = arith.addi %57, %55 : tensor<128xi32>
    %59 = brick.make_range 0, 128 : tensor<128xi32>
    %c128_i32_15 = arith.constant 128 : i32
    %60 = arith.muli %15, %c128_i32_15 : i32
    %61 = brick.splat %60 : tensor<128xi32>
    %62 = arith.addi %61, %59 : tensor<128xi32>
    %63 = brick.expand_dims %62 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %64 = brick.splat %arg4 : tensor<1x128xi32>
    %65 = arith.cmpi slt, %63, %64 : tensor<1x128xi32>
    %66 = brick.expand_dims %58 {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    %67 = brick.splat %arg3 : tensor<128x1xi32>
    %68 = arith.cmpi slt, %66, %67 : tensor<128x1xi32>
    %69 = brick.broadcast %68 : tensor<128x1xi1> -> tensor<128x128xi1>
    %70 = brick.broadcast %65 : tensor<1x128xi1> -> tensor<128x128xi1>
    %71 = arith.andi %69, %70 : tensor<128x128xi1>
    %72 = brick.expand_dims %62 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %73 = brick.splat %c1_i32_1 : tensor<1x128xi32>
    %74 = arith.muli %72, %73 : tensor<1x128xi32>
    %75 = brick.expand_dims %58 {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    %76 = brick.splat %arg10 : tensor<128x1xi32>
    %77 = arith.muli %75, %76 : tensor<128x1xi32>
    %78 = brick.splat %arg2 : tensor<128x1x!brick.ptr<f16>>
    %79 = brick.addptr %78, %77 : tensor<128x1x!brick.ptr<f16>>, tensor<128x1xi32>
    %80 = brick.broadcast %79 : tensor<128x1x!brick.ptr<f16>> -> tensor<128x128x!brick.ptr<f16>>
    %81 = brick.broadcast %74 : tensor<1x128xi32> -> tensor<128x128xi32>
    %82 = brick.addptr %80, %81 : tensor<128x128x!brick.ptr<f16>>, tensor<128x128xi32>
    %83 = arith.truncf %54#0 : tensor<128x128xf32> to tensor<128x128xf16>
    brick.store %82, %83, %71 : tensor<128x128x!brick.ptr<f16>>
    return
  }
}
