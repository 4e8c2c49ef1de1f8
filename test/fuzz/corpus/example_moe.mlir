module {
  func.func @moe(%arg0: !brick.ptr<bf16> {brick.divisibility = 16 : i32}, %arg1: !brick.ptr<bf16> {brick.divisibility = 16 : i32}, %arg2: !brick.ptr<bf16> {brick.divisibility = 16 : i32}, %arg3: !brick.ptr<i32> {brick.divisibility = 16 : i32}, %arg4: !brick.ptr<i32> {brick.divisibility = 16 : i32}, %arg5: i32, %arg6: i32, %arg7: i32, %arg8: i32, %arg9: i32, %arg10: i32 {brick.divisibility = 16 : i32}, %arg11: i32, %arg12: i32 {brick.divisibility = 16 : i32}, %arg13: i32 {brick.divisibility = 16 : i32}, %arg14: i32, %arg15: i32 {brick.divisibility = 16 : i32}, %arg16: i32) attributes {brick.kernel} {
    %c1_i32 = arith.constant 1 : i32
    %c1_i32_0 = arith.constant 1 : i32
    %c1_i32_1 = arith.constant 1 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = arith.addi %arg6, %c128_i32 : i32
    %c1_i32_2 = arith.constant 1 : i32
    %1 = arith.subi %0, %c1_i32_2 : i32
    %c128_i32_3 = arith.constant 128 : i32
    %2 = arith.divsi %1, %c128_i32_3 : i32
    %c64_i32 = arith.constant 64 : i32
    %3 = arith.addi %arg5, %c64_i32 : i32
    %c1_i32_4 = arith.constant 1 : i32
    %4 = arith.subi %3, %c1_i32_4 : i32
    %c64_i32_5 = arith.constant 64 : i32
    %5 = arith.divsi %4, %c64_i32_5 : i32
    %6 = brick.program_id 0
    %c8_i32 = arith.constant 8 : i32
    %7 = arith.muli %c8_i32, %2 : i32
    %8 = arith.divsi %6, %7 : i32
    %c8_i32_6 = arith.constant 8 : i32
    %9 = arith.muli %8, %c8_i32_6 : i32
    %10 = arith.subi %5, %9 : i32
    %c8_i32_7 = arith.constant 8 : i32
    %11 = arith.minsi %10, %c8_i32_7 : i32
    %12 = arith.remsi %6, %7 : i32
    %13 = arith.remsi %12, %11 : i32
    %14 = arith.addi %9, %13 : i32
    %15 = arith.divsi %12, %11 : i32
    %16 = brick.make_range 0, 64 : tensor<64xi32>
    %c64_i32_8 = arith.constant 64 : i32
    %17 = arith.muli %14, %c64_i32_8 : i32
    %18 = brick.addptr %arg3, %17 : !brick.ptr<i32>, i32
    %19 = brick.splat %18 : tensor<64x!brick.ptr<i32>>
    %20 = brick.addptr %19, %16 : tensor<64x!brick.ptr<i32>>, tensor<64xi32>
    %21 = brick.load %20 : tensor<64x!brick.ptr<i32>>
    %22 = brick.splat %arg9 : tensor<64xi32>
    %23 = arith.cmpi slt, %21, %22 : tensor<64xi32>
    %24 = brick.addptr %arg4, %14 : !brick.ptr<i32>, i32
    %25 = brick.load %24 : !brick.ptr<i32>
    %26 = arith.extsi %25 : i32 to i64
    %27 = brick.make_range 0, 128 : tensor<128xi32>
    %c128_i32_9 = arith.constant 128 : i32
    %28 = arith.muli %15, %c128_i32_9 : i32
    %29 = brick.splat %28 : tensor<128xi32>
    %30 = arith.addi %29, %27 : tensor<128xi32>
    %31 = brick.splat %arg6 : tensor<128xi32>
    %32 = arith.remsi %30, %31 : tensor<128xi32>
    %33 = brick.make_range 0, 64 : tensor<64xi32>
    %34 = brick.expand_dims %33 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %35 = brick.splat %c1_i32 : tensor<1x64xi32>
    %36 = arith.muli %34, %35 : tensor<1x64xi32>
    %37 = brick.splat %arg8 : tensor<64xi32>
    %38 = arith.divsi %21, %37 : tensor<64xi32>
    %39 = brick.expand_dims %38 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %40 = brick.splat %arg10 : tensor<64x1xi32>
    %41 = arith.muli %39, %40 : tensor<64x1xi32>
    %42 = brick.splat %arg0 : tensor<64x1x!brick.ptr<bf16>>
    %43 = brick.addptr %42, %41 : tensor<64x1x!brick.ptr<bf16>>, tensor<64x1xi32>
    %44 = brick.broadcast %43 : tensor<64x1x!brick.ptr<bf16>> -> tensor<64x64x!brick.ptr<bf16>>
    %45 = brick.broadcast %36 : tensor<1x64xi32> -> tensor<64x64xi32>
    %46 = brick.addptr %44, %45 : tensor<64x64x!brick.ptr<bf16>>, tensor<64x64xi32>
    %47 = brick.expand_dims %33 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %48 = brick.splat %c1_i32_0 : tensor<64x1xi32>
    %49 = arith.muli %47, %48 : tensor<64x1xi32>
    %50 = brick.expand_dims %32 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %51 = brick.splat %arg13 : tensor<1x128xi32>
    %52 = arith.muli %50, %51 : tensor<1x128xi32>
    %53 = arith.extsi %arg12 : i32 to i64
    %54 = arith.muli %26, %53 : i64
    %55 = brick.addptr %arg1, %54 : !brick.ptr<bf16>, i64
    %56 = brick.splat %55 : tensor<1x128x!brick.ptr<bf16>>
    %57 = brick.addptr %56, %52 : tensor<1x128x!brick.ptr<bf16>>, tensor<1x128xi32>
    %58 = brick.broadcast %57 : tensor<1x128x!brick.ptr<bf16>> -> tensor<64x128x!brick.ptr<bf16>>
    %59 = brick.broadcast %49 : tensor<64x1xi32> -> tensor<64x128xi32>
    %60 = brick.addptr %58, %59 : tensor<64x128x!brick.ptr<bf16>>, tensor<64x128xi32>
    %cst = arith.constant dense<0.000000e+00> : tensor<64x128xf32>
    %c64_i32_10 = arith.constant 64 : i32
    %61 = arith.addi %arg7, %c64_i32_10 : i32
    %c1_i32_11 = arith.constant 1 : i32
    %62 = arith.subi %61, %c1_i32_11 : i32
    %c64_i32_12 = arith.constant 64 : i32
    %63 = arith.divsi %62, %c64_i32_12 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32_13 = arith.constant 1 : i32
    %64:3 = scf.for %arg17 = %c0_i32 to %63 step %c1_i32_13 iter_args(%arg18 = %cst, %arg19 = %46, %arg20 = %60) -> (tensor<64x128xf32>, tensor<64x64x!brick.ptr<bf16>>, tensor<64x128x!brick.ptr<bf16>>)  : i32 {
      %c64_i32_15 = arith.constant 64 : i32
      %88 = arith.muli %arg17, %c64_i32_15 : i32
      %89 = arith.subi %arg7, %88 : i32
      %90 = brick.expand_dims %33 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %91 = brick.splat %89 : tensor<1x64xi32>
      %92 = arith.cmpi slt, %90, %91 : tensor<1x64xi32>
      %93 = brick.expand_dims %23 {axis = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %94 = brick.broadcast %93 : tensor<64x1xi1> -> tensor<64x64xi1>
      %95 = brick.broadcast %92 : tensor<1x64xi1> -> tensor<64x64xi1>
      %96 = arith.andi %94, %95 : tensor<64x64xi1>
      %cst_16 = arith.constant 0.000000e+00 : bf16
      %97 = brick.splat %cst_16 : tensor<64x64xbf16>
      %98 = brick.load %arg19, %96, %97 : tensor<64x64x!brick.ptr<bf16>>
      %99 = brick.expand_dims %33 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %100 = brick.splat %89 : tensor<64x1xi32>
      %101 = arith.cmpi slt, %99, %100 : tensor<64x1xi32>
      %102 = brick.broadcast %101 : tensor<64x1xi1> -> tensor<64x128xi1>
      %cst_17 = arith.constant 0.000000e+00 : bf16
      %103 = brick.splat %cst_17 : tensor<64x128xbf16>
      %104 = brick.load %arg20, %102, %103 : tensor<64x128x!brick.ptr<bf16>>
      %105 = brick.dot %98, %104, %arg18 : tensor<64x64xbf16> * tensor<64x128xbf16> -> tensor<64x128xf32>
      %c64_i32_18 = arith.constant 64 : i32
      %106 = arith.muli %c64_i32_18, %c1_i32 : i32
      %107 = brick.splat %106 : tensor<64x64xi32>
      %108 = brick.addptr %arg19, %107 : tensor<64x64x!brick.ptr<bf16>>, tensor<64x64xi32>
      %c64_i32_19 = arith.constant 64 : i32
      %109 = arith.muli %c64_i32_19, %c1_i32_0 : i32
      %110 = brick.splat %109 : tensor<64x128xi32>
      %111 = brick.addptr %arg20, %110 : tensor<64x128x!brick.ptr<bf16>>, tensor<64x128xi32>
      scf.yield %105, %108, %111 : tensor<64x128xf32>, tensor<64x64x!brick.ptr<bf16>>, tensor<64x128x!brick.ptr<bf16>>
    }
    %65 = brick.make_range 0, 128 : tensor<128xi32>
    %c128_i32_14 = arith.constant 128 : i32
    %66 = arith.muli %15, %c128_i32_14 : i32
    %67 = brick.splat %66 : tensor<128xi32>
    %68 = arith.addi %67, %65 : tensor<128xi32>
    %69 = brick.expand_dims %68 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %70 = brick.splat %arg6 : tensor<1x128xi32>
    %71 = arith.cmpi slt, %69, %70 : tensor<1x128xi32>
    %72 = brick.expand_dims %23 {axis = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
    %73 = brick.broadcast %72 : tensor<64x1xi1> -> tensor<64x128xi1>
    %74 = brick.broadcast %71 : tensor<1x128xi1> -> tensor<64x128xi1>
    %75 = arith.andi %73, %74 : tensor<64x128xi1>
    %76 = brick.expand_dims %68 {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %77 = brick.splat %c1_i32_1 : tensor<1x128xi32>
    %78 = arith.muli %76, %77 : tensor<1x128xi32>
    %79 = brick.expand_dims %21 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %80 = brick.splat %arg15 : tensor<64x1xi32>
    %81 = arith.muli %79, %80 : tensor<64x1xi32>
    %82 = brick.splat %arg2 : tensor<64x1x!brick.ptr<bf16>>
    %83 = brick.addptr %82, %81 : tensor<64x1x!brick.ptr<bf16>>, tensor<64x1xi32>
    %84 = brick.broadcast %83 : tensor<64x1x!brick.ptr<bf16>> -> tensor<64x128x!brick.ptr<bf16>>
    %85 = brick.broadcast %78 : tensor<1x128xi32> -> tensor<64x128xi32>
    %86 = brick.addptr %84, %85 : tensor<64x128x!brick.ptr<bf16>>, tensor<64x128xi32>
    %87 = arith.truncf %64#0 : tensor<64x128xf32> to tensor<64x128xbf16>
    brick.store %86, %87, %75 : tensor<64x128x!brick.ptr<bf16>>
    return
  }
}
