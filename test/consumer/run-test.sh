#!/usr/bin/env bash
# Brick as a user gets it: installs the build into a fresh prefix and builds test/consumer against it with
# find_package(Brick) alone; runs the user's kernel on the interpreter, shows its PTX for sm_90a from the command
# line, and runs the generated AOT launcher on the interpreter (Brick::brick). The same launcher in a program that
# links Brick::runtime alone is built here and run by the test consumer-gpu-launch. Then adds the checkout with
# add_subdirectory and builds a runtime-only program from it.
# Usage: run-test.sh <brick build dir> <brick source dir> <scratch dir>
set -euo pipefail
build=$(realpath "$1") source=$(realpath "$2") scratch=$(realpath -m "$3")
rm -rf "$scratch" && mkdir -p "$scratch"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake "${generator[@]}" -S "$source/test/consumer" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$scratch/prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$scratch/consumer"
cd "$scratch/consumer"

./saxpy_app | tee app.out
grep -q "on the interpreter: OK" app.out

./saxpy_app --kernel=saxpy --emit=ptx --arch=sm_90a -o saxpy.ptx
grep -q "^.target sm_90a" saxpy.ptx
grep -q "ld.global.v4.b32" saxpy.ptx
echo "user kernel as sm_90a PTX: OK"

./saxpy_aot_interpreted

# The runtime-only program links no compiler: no libbrick, MLIR or LLVM.
if ldd ./saxpy_aot | grep -E "libbrick|libMLIR|libLLVM"; then
  echo "FAIL: saxpy_aot links the compiler" >&2
  exit 1
fi

cmake "${generator[@]}" -S "$source/test/consumer/subdirectory" -B "$scratch/subdirectory" \
  -DBRICK_SOURCE_DIR="$source" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$scratch/subdirectory" --target bundle_info
"$scratch/subdirectory/bundle_info" "$scratch/consumer/generated/saxpy.0.brick" | tee info.out
grep -q "saxpy for sm_" info.out
echo "add_subdirectory: Brick::brick and Brick::runtime defined, the runtime-only program runs: OK"
