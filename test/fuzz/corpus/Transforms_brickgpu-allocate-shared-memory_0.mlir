// Shared memory: buffers live at the same time never overlap; buffers that are not reuse bytes.

#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>

// Two conversions one after the other: their scratch (4 KiB each) shares offset 0. A shared buffer live
// across both takes its own bytes after them.
// CHECK: module attributes {brickgpu.shared = 6144 : i32}
// CHECK-LABEL: func.func @reuse
// CHECK: brickgpu.local_alloc {{.*}}brickgpu.offset = 4096 : i32
// CHECK: brickgpu.convert_layout {{.*}}brickgpu.offset = 0 : i32
// CHECK: brickgpu.convert_layout {{.*}}brickgpu.offset = 0 : i32
// CHECK: brickgpu.local_load
func.func @reuse(%x: tensor<1024xf32, #a>, %y: tensor<512xf32, #a>) -> (tensor<1024xf32, #b>, tensor<1024xf32, #a>, tensor<512xf32, #a>) {
  %buf = brickgpu.local_alloc %y : (tensor<512xf32, #a>) -> !brickgpu.memdesc<512xf32, #shared>
  %1 = brickgpu.convert_layout %x : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
  %2 = brickgpu.convert_layout %1 : tensor<1024xf32, #b> -> tensor<1024xf32, #a>
  %3 = brickgpu.local_load %buf : !brickgpu.memdesc<512xf32, #shared> -> tensor<512xf32, #a>
  return %1, %2, %3 : tensor<1024xf32, #b>, tensor<1024xf32, #a>, tensor<512xf32, #a>
}
