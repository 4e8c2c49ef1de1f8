// Loads and stores with every eviction priority and cache modifier Brick passes on, alone and together: ptxas
// must take each form.
module {
  func.func @hints(%x: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %y: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %n: i32 {brick.divisibility = 16 : i32}) attributes {brick.kernel} {
    %c1024_i32 = arith.constant 1024 : i32
    %r = brick.make_range 0, 1024 : tensor<1024xi32>
    %pid = brick.program_id 0
    %base = arith.muli %pid, %c1024_i32 : i32
    %bases = brick.splat %base : tensor<1024xi32>
    %i = arith.addi %bases, %r : tensor<1024xi32>
    %ns = brick.splat %n : tensor<1024xi32>
    %m = arith.cmpi slt, %i, %ns : tensor<1024xi32>
    %xs = brick.splat %x : tensor<1024x!brick.ptr<f32>>
    %xp = brick.addptr %xs, %i : tensor<1024x!brick.ptr<f32>>, tensor<1024xi32>
    %ys = brick.splat %y : tensor<1024x!brick.ptr<f32>>
    %yp = brick.addptr %ys, %i : tensor<1024x!brick.ptr<f32>>, tensor<1024xi32>
    %a = brick.load %xp, %m evict = evict_first : tensor<1024x!brick.ptr<f32>>
    %b = brick.load %xp, %m evict = evict_last : tensor<1024x!brick.ptr<f32>>
    %c = brick.load %xp, %m cache = cg evict = evict_first : tensor<1024x!brick.ptr<f32>>
    %d = brick.load %xp, %m volatile : tensor<1024x!brick.ptr<f32>>
    %ab = arith.addf %a, %b : tensor<1024xf32>
    %cd = arith.addf %c, %d : tensor<1024xf32>
    brick.store %yp, %ab, %m evict = evict_first : tensor<1024x!brick.ptr<f32>>
    brick.store %yp, %cd, %m cache = wb evict = evict_last : tensor<1024x!brick.ptr<f32>>
    return
  }
}
