#shared = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @f(%x: !brickgpu.memdesc<48xf32, #shared>) { return }
