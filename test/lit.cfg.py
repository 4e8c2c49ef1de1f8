# -*- Python -*-
# lit configuration of Brick's FileCheck tests: test/<Area>/<name>.mlir, run through brick-opt and brickc.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "Brick"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.brick_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "gpu", "lib", "Inputs", "fuzz"]

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.brick_tools_dir, append_path=True)

# The example programs are found on PATH: substituting their names would also rewrite --example=<name>.
tools = ["brick-opt", "brickc", "brick-bundle"]
llvm_config.add_tool_substitutions(tools, [config.brick_tools_dir])

# ptxas proves the PTX assembles; tests that need it say `REQUIRES: ptxas`.
import shutil
ptxas = os.environ.get("BRICK_PTXAS") or ("/usr/local/cuda/bin/ptxas" if os.access("/usr/local/cuda/bin/ptxas", os.X_OK) else shutil.which("ptxas"))
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# nvcc builds the CUDA probes under bench/ (bench/run builds them on the GPU machine); `REQUIRES: nvcc`.
nvcc = os.environ.get("BRICK_NVCC") or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else shutil.which("nvcc"))
if nvcc:
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))
config.substitutions.append(("%brick_src", config.brick_src_root))

# NVTX ranges, seen through test/lib/NvtxLog.c (built when the build found NVTX3).
nvtx_log = os.path.join(config.brick_obj_root, "lib", "libbrick-nvtx-log.so")
if os.path.exists(nvtx_log):
    config.available_features.add("nvtx")
    config.substitutions.append(("%nvtx_log", nvtx_log))
    config.substitutions.append(("%brick_runtime_tests", os.path.join(config.brick_tools_dir, "brick-runtime-tests")))
