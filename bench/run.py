#!/usr/bin/env python3
"""Brick against the copy ceiling, torch and Triton, measured in one run on one GPU.

  python3 bench/run.py path/to/brick-bench            (on the GPU machine; .ci/gpu-package builds brick-bench)
  python3 bench/run.py --sweep path/to/brick-bench    (softmax at 1..8 rows x 1..16 warps per program)

Brick's numbers come from brick-bench (CUDA events, L2 flushed, median of 50); torch's and Triton's from
triton.testing.do_bench (which also flushes L2; median). Prints a table of GB/s and ratios, and the JSON.
"""
import json, subprocess, sys, time

import torch, triton, triton.language as tl
from triton.testing import do_bench


def median_ms(fn):
    return do_bench(fn, warmup=25, rep=100, return_mode="median")


@triton.jit
def triton_add(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=mask) + tl.load(y + offs, mask=mask), mask=mask)


@triton.jit
def triton_softmax(out, inp, istride, ostride, n_rows, n_cols, BLOCK: tl.constexpr):
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        offs = tl.arange(0, BLOCK)
        x = tl.load(inp + row * istride + offs, mask=offs < n_cols, other=-float("inf")).to(tl.float32)
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        tl.store(out + row * ostride + offs, (num / tl.sum(num, axis=0)).to(out.dtype.element_ty), mask=offs < n_cols)


@triton.jit
def nop(p):
    pass


def sweep(binary):
    """Softmax at each rows-per-tile x warps x grid setting: the five fastest for each shape."""
    import re
    results = json.loads(subprocess.run([binary, "--softmax-sweep"], check=True, capture_output=True, text=True).stdout)
    table = {}
    for key, gbps in results.items():
        m = re.fullmatch(r"softmax_(\w+)_8192x(\d+)_rows(\d+)_warps(\d+)_grid(\d+)_GBps", key)
        if m:
            table.setdefault(f"{m[1]} 8192x{m[2]}", []).append((gbps, f"rows {m[3]} warps {m[4]} grid {m[5]}"))
    for shape, runs in table.items():
        runs.sort(reverse=True)
        print(f"{shape:16s} " + " | ".join(f"{g:.0f}: {what}" for g, what in runs[:5]))


def main():
    if sys.argv[1] == "--sweep":
        return sweep(sys.argv[2])
    brick = json.loads(subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    anchors = {}
    big = torch.empty(1 << 29, dtype=torch.float16, device="cuda")
    big2 = torch.empty_like(big)
    anchors["copy_GBps"] = 2 * big.numel() * 2 / median_ms(lambda: big2.copy_(big)) / 1e6
    del big, big2

    n = 1 << 26
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    anchors["vector_add_torch"] = 12 * n / median_ms(lambda: torch.add(x, y, out=out)) / 1e6
    anchors["vector_add_triton"] = 12 * n / median_ms(lambda: triton_add[(n // 1024,)](x, y, out, n, BLOCK=1024)) / 1e6

    for dtype, name in ((torch.float32, "fp32"), (torch.bfloat16, "bf16")):
        for cols in (256, 1024, 3000, 4096, 16384):
            x = torch.randn(8192, cols, device="cuda", dtype=dtype)
            y = torch.empty_like(x)
            block = triton.next_power_of_2(cols)
            warps = 4 if block < 2048 else (8 if block < 4096 else 16)
            tri = lambda: triton_softmax[(min(8192, sms * 8),)](y, x, x.stride(0), y.stride(0), 8192, cols, BLOCK=block, num_warps=warps)
            bytes_ = 2 * x.numel() * x.element_size()
            anchors[f"softmax_{name}_8192x{cols}_torch"] = bytes_ / median_ms(lambda: torch.softmax(x, dim=-1)) / 1e6
            anchors[f"softmax_{name}_8192x{cols}_triton"] = bytes_ / median_ms(tri) / 1e6
            # The copy ceiling at this size: reading and writing the same bytes, flushed the same way.
            anchors[f"softmax_{name}_8192x{cols}_copy"] = bytes_ / median_ms(lambda: y.copy_(x)) / 1e6

    z = torch.empty(1, device="cuda")
    nop[(1,)](z)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(2000):
        nop[(1,)](z)
    torch.cuda.synchronize()
    anchors["triton_launch_us"] = (time.perf_counter() - start) / 2000 * 1e6

    copy = anchors["copy_GBps"]
    print(f"{brick['device']}: device copy {copy:.0f} GB/s")
    print(f"{'work':28s} {'Brick':>8s} {'torch':>8s} {'Triton':>8s} {'copy':>8s}  {'/copy':>6s} {'/torch':>7s} {'/Triton':>8s}")
    print("(copy: a device copy of the same bytes, flushed the same way; the ceiling at that size)")
    rows = [("vector_add 2^26 f32", brick["vector_add_GBps"], anchors["vector_add_torch"], anchors["vector_add_triton"], copy)]
    for name in ("fp32", "bf16"):
        for cols in (256, 1024, 3000, 4096, 16384):
            key = f"softmax_{name}_8192x{cols}"
            rows.append((f"softmax {name} 8192x{cols}", brick[key + "_GBps"], anchors[key + "_torch"], anchors[key + "_triton"],
                         anchors[key + "_copy"]))
    for label, b, t, tr, c in rows:
        print(f"{label:28s} {b:8.0f} {t:8.0f} {tr:8.0f} {c:8.0f}  {b / c:6.2f} {b / t:7.2f} {b / tr:8.2f}")
    print(f"softmax cold first launch (compile + load): {brick['softmax_cold_first_launch_ms']:.1f} ms; "
          f"with the disk cache warm: {brick['softmax_disk_cached_first_launch_ms']:.1f} ms")
    print(f"cached launch: Brick {brick['cached_launch_us']:.2f} us (C++; runtime alone {brick['runtime_launch_us']:.2f}, "
          f"bare cuLaunchKernel {brick['driver_launch_us']:.2f}), Triton {anchors['triton_launch_us']:.2f} us (Python)")
    print(json.dumps({"brick": brick, "anchors": anchors}))


if __name__ == "__main__":
    main()
