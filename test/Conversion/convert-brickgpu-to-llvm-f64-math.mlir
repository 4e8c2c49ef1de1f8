// f64 transcendentals have no GPU implementation (NVPTX has none and no libdevice is linked): an error at the op,
// where LLVM's instruction selection aborted (sin, cos) or failed without a location (exp, log, tanh, erf).
// RUN: brick-opt %s -split-input-file -convert-brickgpu-to-llvm -verify-diagnostics

module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @sin(%x: f64) -> f64 {
    // expected-error @+1 {{math.sin of f64 has no GPU implementation here; compute it in f32}}
    %y = math.sin %x : f64
    return %y : f64
  }
}

// -----

module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @erf(%x: f64) -> f64 {
    // expected-error @+1 {{math.erf of f64 has no GPU implementation here; compute it in f32}}
    %y = math.erf %x : f64
    return %y : f64
  }
}

// -----

// f64 square roots and f32 transcendentals lower.
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @fine(%x: f64, %z: f32) -> (f64, f32) {
    %y = math.sqrt %x : f64
    %w = math.sin %z : f32
    return %y, %w : f64, f32
  }
}
