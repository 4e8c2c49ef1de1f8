brickgpu.barrier
