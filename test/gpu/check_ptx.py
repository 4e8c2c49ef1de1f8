#!/usr/bin/env python3
"""Runs the PTX brickc emits for the examples on a GPU and checks it against torch (float64 references).

Until Brick's own runtime lands, this is how the code generator is proven on hardware: it loads each
kernel's PTX through the CUDA driver API (cuModuleLoadDataEx, with the JIT log surfaced), launches it with the
arguments of the example catalog's specialization, on fresh random inputs with poisoned outputs, and compares.

  prepare (no GPU):  test/gpu/check_ptx.py --prepare DIR     (writes DIR/<example>.ptx and DIR/meta.json)
  run (GPU):         python3 test/gpu/check_ptx.py --run DIR [--time]

--time adds a first reading of speed (CUDA events, median of 100 launches, torch in the same process); the
benchmarks proper live in bench/.
"""
import argparse, ctypes, json, os, re, subprocess, sys

EXAMPLES = ["vector_add", "softmax", "matmul", "moe"]


def prepare(folder, brickc):
    os.makedirs(folder, exist_ok=True)
    meta = {}
    for name in EXAMPLES:
        ptx = os.path.join(folder, name + ".ptx")
        subprocess.run([brickc, "--example=" + name, "--emit=ptx", "--arch=sm_90a", "-o", ptx], check=True)
        report = subprocess.run([brickc, "--example=" + name, "--emit=ptx", "--resource-usage", "-o", os.devnull],
                                check=True, capture_output=True, text=True).stderr
        shared = int(re.search(r"(\d+) bytes dynamic shared memory", report).group(1))
        warps = int(re.search(r"(\d+) warps", report).group(1))
        meta[name] = {"shared": shared, "warps": warps, "report": report.strip()}
    json.dump(meta, open(os.path.join(folder, "meta.json"), "w"), indent=1)
    print("prepared", folder)


def run(folder, timing):
    import torch
    cu = ctypes.CDLL("libcuda.so.1")
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # a current context
    meta = json.load(open(os.path.join(folder, "meta.json")))

    def check(code, what):
        if code != 0:
            name = ctypes.c_char_p()
            cu.cuGetErrorName(code, ctypes.byref(name))
            raise RuntimeError(f"{what}: CUDA error {code} {name.value}")

    functions = {}
    for name in EXAMPLES:
        ptx = open(os.path.join(folder, name + ".ptx"), "rb").read() + b"\0"
        log = ctypes.create_string_buffer(1 << 14)
        options = (ctypes.c_int * 2)(5, 6)  # CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
        values = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p).value, 1 << 14)
        module = ctypes.c_void_p()
        code = cu.cuModuleLoadDataEx(ctypes.byref(module), ptx, 2, options, values)
        if code != 0:
            print(log.value.decode(errors="replace"))
        check(code, f"loading {name}.ptx")
        function = ctypes.c_void_p()
        check(cu.cuModuleGetFunction(ctypes.byref(function), module, name.encode()), name)
        shared = meta[name]["shared"]
        if shared > 48 * 1024:  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            check(cu.cuFuncSetAttribute(function, 8, shared), f"{name}: opting in to {shared} bytes of shared memory")
        functions[name] = function

    def launch(name, grid, args):
        holders = []
        for a in args:
            holders.append(ctypes.c_uint64(a.data_ptr()) if isinstance(a, torch.Tensor) else ctypes.c_int32(a))
        pointers = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.pointer(h), ctypes.c_void_p) for h in holders])
        threads = 32 * meta[name]["warps"]
        check(cu.cuLaunchKernel(functions[name], grid, 1, 1, threads, 1, 1, meta[name]["shared"], None, pointers, None),
              f"launching {name}")
        torch.cuda.synchronize()

    def relerr(out, ref):
        out, ref = out.double(), ref.double()
        if not torch.isfinite(out).all():
            return float("inf")
        return ((out - ref).norm() / ref.norm()).item()

    results = []

    def record(name, shape, err, limit):
        ok = err <= limit
        results.append(ok)
        print(f"{name:11s} {shape:28s} relerr {err:.2e} (limit {limit:.0e}) {'ok' if ok else 'FAIL'}", flush=True)

    # vector_add: n a multiple of 16 (the specialization), not of the 1024-element block.
    for n in (1024, 98432, 1000000 - 1000000 % 16 + 16 * 7):
        x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        out = torch.full((n,), float("nan"), device="cuda")
        launch("vector_add", (n + 1023) // 1024, [x, y, out, n])
        record("vector_add", f"n={n}", relerr(out, x.double() + y.double()), 1e-6)

    # softmax, f32, BLOCK = 1024: columns a multiple of 16 up to 1024; padded row stride.
    for rows, cols, stride in ((8192, 1024, 1024), (300, 1008, 1024), (17, 16, 48)):
        x = torch.randn(rows, stride, device="cuda") * 4
        out = torch.full((rows, stride), float("nan"), device="cuda")
        launch("softmax", rows, [out, x, stride, stride, cols])
        ref = torch.softmax(x[:, :cols].double(), dim=-1)
        record("softmax", f"{rows}x{cols} (stride {stride})", relerr(out[:, :cols], ref), 1e-5)
        if not torch.isnan(out[:, cols:]).all():
            print("softmax     wrote past its columns: FAIL")
            results.append(False)

    # matmul, f16 in, f32 accumulate, 128x128x64 tiles: sizes multiples of 16, ragged against the tiles.
    for m, n, k in ((256, 256, 256), (272, 144, 80), (1024, 512, 2048)):
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
        grid = ((m + 127) // 128) * ((n + 127) // 128)
        launch("matmul", grid, [a, b, c, m, n, k, a.stride(0), 1, b.stride(0), 1, c.stride(0), 1])
        record("matmul", f"{m}x{n}x{k}", relerr(c, a.double() @ b.double()), 1e-2)

    # moe: tokens sorted by expert, each expert's run padded to BLOCK_M = 64 with invalid ids.
    E, topk, K, N, BM = 8, 2, 256, 384, 64
    for T in (1, 20, 300):
        a = torch.randn(T, K, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(E, N, K, device="cuda", dtype=torch.bfloat16) * 0.1
        ids = torch.stack([torch.randperm(E, device="cuda")[:topk] for _ in range(T)]).flatten()
        pairs = []
        block_expert = []
        for e in range(E):
            mine = (ids == e).nonzero().flatten().tolist()
            if not mine:
                continue
            padded = mine + [T * topk] * ((-len(mine)) % BM)
            pairs += padded
            block_expert += [e] * (len(padded) // BM)
        sorted_ids = torch.tensor(pairs, dtype=torch.int32, device="cuda")
        blocks = torch.tensor(block_expert, dtype=torch.int32, device="cuda")
        c = torch.full((T * topk, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        grid = (len(pairs) // BM) * ((N + 127) // 128)
        launch("moe", grid, [a, w, c, sorted_ids, blocks, len(pairs), N, K, topk, T * topk,
                             a.stride(0), 1, w.stride(0), w.stride(1), 1, c.stride(0), 1])
        ref = torch.stack([a[p // topk].double() @ w[ids[p]].double().T for p in range(T * topk)])
        record("moe", f"T={T} E={E} K={K} N={N}", relerr(c, ref), 1e-2)

    if timing:
        def median_ms(fn):
            fn()
            times = []
            for _ in range(100):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record(); fn(); end.record(); end.synchronize()
                times.append(start.elapsed_time(end))
            return sorted(times)[len(times) // 2]
        def quiet_launch(name, grid, args):  # launch without synchronizing: events time the GPU
            holders = [ctypes.c_uint64(a.data_ptr()) if isinstance(a, torch.Tensor) else ctypes.c_int32(a) for a in args]
            pointers = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.pointer(h), ctypes.c_void_p) for h in holders])
            check(cu.cuLaunchKernel(functions[name], grid, 1, 1, 32 * meta[name]["warps"], 1, 1, meta[name]["shared"],
                                    ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), pointers, None), name)
        n = 1 << 26
        x, y, out = torch.randn(n, device="cuda"), torch.randn(n, device="cuda"), torch.empty(n, device="cuda")
        gb = 3 * n * 4 / 1e9
        t = median_ms(lambda: quiet_launch("vector_add", n // 1024, [x, y, out, n]))
        tt = median_ms(lambda: torch.add(x, y, out=out))
        print(f"time vector_add n=2^26: brick {gb / t * 1e3:.0f} GB/s, torch {gb / tt * 1e3:.0f} GB/s (ratio {tt / t:.2f})")
        x = torch.randn(8192, 1024, device="cuda"); out = torch.empty_like(x)
        gb = 2 * x.numel() * 4 / 1e9
        t = median_ms(lambda: quiet_launch("softmax", 8192, [out, x, 1024, 1024, 1024]))
        tt = median_ms(lambda: torch.softmax(x, dim=-1))
        print(f"time softmax 8192x1024 f32: brick {gb / t * 1e3:.0f} GB/s, torch {gb / tt * 1e3:.0f} GB/s (ratio {tt / t:.2f})")
        a = torch.randn(1024, 2048, device="cuda", dtype=torch.float16); b = torch.randn(2048, 1024, device="cuda", dtype=torch.float16)
        c = torch.empty(1024, 1024, device="cuda", dtype=torch.float16)
        t = median_ms(lambda: quiet_launch("matmul", 64, [a, b, c, 1024, 1024, 2048, 2048, 1, 1024, 1, 1024, 1]))
        tt = median_ms(lambda: a @ b)
        flops = 2 * 1024 * 1024 * 2048 / 1e12
        print(f"time matmul 1024x1024x2048 f16 (FMA fallback): brick {flops / t * 1e3:.1f} TFLOP/s, cuBLAS {flops / tt * 1e3:.1f} TFLOP/s")

    print(f"{sum(results)}/{len(results)} checks passed on {torch.cuda.get_device_name()}")
    return 0 if all(results) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prepare", metavar="DIR")
    parser.add_argument("--run", metavar="DIR")
    parser.add_argument("--time", action="store_true", help="also time vector_add, softmax and matmul")
    parser.add_argument("--brickc", default=os.path.join(os.path.dirname(__file__), "../../build/bin/brickc"))
    args = parser.parse_args()
    if args.prepare:
        prepare(args.prepare, args.brickc)
    if args.run:
        sys.exit(run(args.run, args.time))
