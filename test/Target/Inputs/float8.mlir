// f32 -> e4m3fn and e5m2 -> f32 and f16 and bf16, 1024 elements: the conversions PTX (or integer arithmetic) does;
// then a block constant of e4m3fn (1.5: code 0x3c) stored over the first.
module {
  func.func @float8(%x: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %q: !brick.ptr<f8E4M3FN> {brick.divisibility = 16 : i32}, %r: !brick.ptr<f8E5M2> {brick.divisibility = 16 : i32}, %y: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %h: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %b: !brick.ptr<bf16> {brick.divisibility = 16 : i32}) attributes {brick.kernel} {
    %i = brick.make_range 0, 1024 : tensor<1024xi32>
    %xs = brick.splat %x : tensor<1024x!brick.ptr<f32>>
    %xp = brick.addptr %xs, %i : tensor<1024x!brick.ptr<f32>>, tensor<1024xi32>
    %v = brick.load %xp : tensor<1024x!brick.ptr<f32>>
    %e4 = arith.truncf %v : tensor<1024xf32> to tensor<1024xf8E4M3FN>
    %e5 = arith.truncf %v : tensor<1024xf32> to tensor<1024xf8E5M2>
    %qs = brick.splat %q : tensor<1024x!brick.ptr<f8E4M3FN>>
    %qp = brick.addptr %qs, %i : tensor<1024x!brick.ptr<f8E4M3FN>>, tensor<1024xi32>
    brick.store %qp, %e4 : tensor<1024x!brick.ptr<f8E4M3FN>>
    %rs = brick.splat %r : tensor<1024x!brick.ptr<f8E5M2>>
    %rp = brick.addptr %rs, %i : tensor<1024x!brick.ptr<f8E5M2>>, tensor<1024xi32>
    brick.store %rp, %e5 : tensor<1024x!brick.ptr<f8E5M2>>
    %back = arith.extf %e4 : tensor<1024xf8E4M3FN> to tensor<1024xf32>
    %ys = brick.splat %y : tensor<1024x!brick.ptr<f32>>
    %yp = brick.addptr %ys, %i : tensor<1024x!brick.ptr<f32>>, tensor<1024xi32>
    brick.store %yp, %back : tensor<1024x!brick.ptr<f32>>
    %half = arith.extf %e5 : tensor<1024xf8E5M2> to tensor<1024xf16>
    %hs = brick.splat %h : tensor<1024x!brick.ptr<f16>>
    %hp = brick.addptr %hs, %i : tensor<1024x!brick.ptr<f16>>, tensor<1024xi32>
    brick.store %hp, %half : tensor<1024x!brick.ptr<f16>>
    %wide = arith.extf %e4 : tensor<1024xf8E4M3FN> to tensor<1024xf32>
    %bf = arith.truncf %wide : tensor<1024xf32> to tensor<1024xbf16>
    %bs = brick.splat %b : tensor<1024x!brick.ptr<bf16>>
    %bp = brick.addptr %bs, %i : tensor<1024x!brick.ptr<bf16>>, tensor<1024xi32>
    brick.store %bp, %bf : tensor<1024x!brick.ptr<bf16>>
    %k = arith.constant dense<1.5> : tensor<1024xf8E4M3FN>
    brick.store %qp, %k : tensor<1024x!brick.ptr<f8E4M3FN>>
    return
  }
}
