#b = #brickgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @copy(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %n: i32 {brick.divisibility = 16 : i32}, %slot: i32) attributes {brick.kernel} {
    %r = brick.make_range 0, 1024 : tensor<1024xi32, #b>
    %ps = brick.splat %p : tensor<1024x!brick.ptr<f16>, #b>
    %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f16>, #b>, tensor<1024xi32, #b>
    %ns = brick.splat %n : tensor<1024xi32, #b>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #b>
    %ring = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x1024xf16, #s>
    %buffer = brickgpu.memdesc_index %ring[%slot] : !brickgpu.memdesc<3x1024xf16, #s> -> !brickgpu.memdesc<1024xf16, #s>
    brickgpu.async_copy_global_to_local %ptrs, %buffer mask %m : tensor<1024x!brick.ptr<f16>, #b> -> !brickgpu.memdesc<1024xf16, #s>, tensor<1024xi1, #b>
    brickgpu.async_commit_group
    brickgpu.async_wait %ring : !brickgpu.memdesc<3x1024xf16, #s> {pending = 0 : i32}
    return
  }
}
