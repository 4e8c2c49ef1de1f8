#!/usr/bin/env python3
"""Brick against the copy ceiling, torch and Triton, measured in one run on one GPU.

  python3 bench/run.py path/to/brick-bench            (on the GPU machine; .ci/gpu-package builds brick-bench)
  python3 bench/run.py --sweep path/to/brick-bench    (softmax at 1..8 rows x 1..16 warps per program)
  python3 bench/run.py --matmul path/to/brick-bench   (matmul alone: Brick, cuBLAS, Triton)
  python3 bench/run.py --matmul-sweep path/to/brick-bench 128,128,64,8,8,3 ...   (matmul configs vs cuBLAS)
  python3 bench/run.py --autotune path/to/brick-bench (the autotuner vs exhaustive sweeps; tuning time vs Triton)
  python3 bench/run.py --moe path/to/brick-bench [CFG...] (the MoE layer vs Triton's fused_moe: bench/moe.py)
  python3 bench/run.py --attention path/to/brick-bench [CFG...] (vs Triton and torch: bench/attention.py)

Brick's numbers come from brick-bench (CUDA events, L2 flushed, median of 50); torch's and Triton's from
triton.testing.do_bench (which also flushes L2; median). Prints a table of GB/s and ratios, and the JSON.
"""
import json
import os, subprocess, sys, time

import torch, triton, triton.language as tl
from triton.testing import do_bench

from timing import median_event_ms


def median_ms(fn):
    return do_bench(fn, warmup=25, rep=100, return_mode="median")


_read_flush = None


def median_ms_read_flush(fn, reps=50):
    """Median ms of fn with L2 flushed by reading 256 MB before each call (brick-bench's `_read_flush` keys).
    do_bench's flush is a memset, which leaves L2 full of dirty lines that fn then writes back (~50 MB)."""
    global _read_flush
    if _read_flush is None:
        _read_flush = torch.ones(64 << 20, dtype=torch.float32, device="cuda")
    return median_event_ms(fn, lambda rep: _read_flush.sum(), reps)


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


# Triton's tutorial matmul (grouped program order, masked K tail), autotuned over the configurations the anchors use.
def matmul_body(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, G: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    group = pid // (G * tiles_n)
    first = group * G
    size = min(tiles_m - first, G)
    tm = first + (pid % (G * tiles_n)) % size
    tn = (pid % (G * tiles_n)) // size
    rm = (tm * BM + tl.arange(0, BM)) % M
    rn = (tn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    pa = a + rm[:, None] * sam + rk[None, :] * sak
    pb = b + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(tl.load(pa, mask=rk[None, :] < K - k * BK, other=0.0),
                     tl.load(pb, mask=rk[:, None] < K - k * BK, other=0.0), acc)
        pa += BK * sak
        pb += BK * sbk
    cm = tm * BM + tl.arange(0, BM)
    cn = tn * BN + tl.arange(0, BN)
    tl.store(c + cm[:, None] * scm + cn[None, :] * scn, acc.to(c.dtype.element_ty),
             mask=(cm[:, None] < M) & (cn[None, :] < N))


def triton_config(bm, bn, bk, g, warps, stages):
    return triton.Config({'BM': bm, 'BN': bn, 'BK': bk, 'G': g}, num_stages=stages, num_warps=warps)


triton_matmul = triton.autotune(configs=[triton_config(128, 256, 64, 8, 8, 3), triton_config(128, 128, 64, 8, 4, 4),
                                         triton_config(128, 256, 64, 8, 8, 4), triton_config(64, 128, 64, 8, 4, 4)],
                                key=['M', 'N', 'K'])(triton.jit(matmul_body))

# The 8 configs brick-bench --autotune tunes over (BM, BN, BK, G, warps, stages), for Triton's side of it.
AUTOTUNE_MATMUL_CONFIGS = [(256, 128, 64, 8, 8, 4), (128, 256, 64, 8, 8, 4), (128, 128, 64, 8, 8, 4),
                           (256, 128, 64, 8, 8, 3), (128, 256, 64, 8, 8, 3), (128, 128, 64, 8, 4, 4),
                           (128, 128, 64, 8, 4, 3), (64, 128, 64, 8, 4, 4)]


def run_triton_matmul(a, b, c, kernel=None):
    M, K = a.shape
    N = b.shape[1]
    grid = lambda meta: (triton.cdiv(M, meta['BM']) * triton.cdiv(N, meta['BN']),)
    (kernel or triton_matmul)[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                                    c.stride(1))


def autotune(binary):
    """Brick's autotuner against an exhaustive sweep of the same configs, and the wall time of a first launch that
    tunes 8 matmul configs (compiled in parallel, then serially) beside Triton's autotuner on the same 8."""
    import tempfile
    brick = json.loads(subprocess.run([binary, "--autotune"], check=True, capture_output=True, text=True).stdout)
    triton_s = {}
    for dtype, name in ((torch.float16, "fp16"), (torch.bfloat16, "bf16")):
        os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()  # nothing compiled before
        kernel = triton.autotune(configs=[triton_config(*c) for c in AUTOTUNE_MATMUL_CONFIGS],
                                 key=['M', 'N', 'K'])(triton.jit(matmul_body))
        a = torch.randn(4096, 4096, device="cuda", dtype=dtype)
        b = torch.randn(4096, 4096, device="cuda", dtype=dtype)
        c = torch.empty(4096, 4096, device="cuda", dtype=dtype)
        torch.cuda.synchronize()
        start = time.perf_counter()
        run_triton_matmul(a, b, c, kernel)
        torch.cuda.synchronize()
        triton_s[name] = time.perf_counter() - start
        triton_s[name + "_chosen"] = str(kernel.best_config)
    print(f"{brick['device']} ({brick['host_threads']} host threads)")
    for name in ("fp32", "bf16"):
        for cols in (1024, 3000, 16384):
            k = f"autotune_softmax_{name}_8192x{cols}"
            print(f"softmax {name} 8192x{cols:<6d} chose {brick[k + '_chosen']:28s} {brick[k + '_chosen_GBps']:6.0f} GB/s;"
                  f" best of the 15 {brick[k + '_best']:28s} {brick[k + '_best_GBps']:6.0f} GB/s:"
                  f" {brick[k + '_chosen_GBps'] / brick[k + '_best_GBps']:.3f} of the best (tuning {brick[k + '_tuning_ms']:.0f} ms)")
    for name in ("fp16", "bf16"):
        k = f"autotune_matmul_{name}_4096x4096x4096"
        for how in ("parallel", "serial"):
            print(f"matmul {name} 4096^3 ({how} tuning) chose {brick[k + f'_{how}_chosen']:28s}"
                  f" {brick[k + f'_{how}_chosen_TFLOPs']:6.1f} TFLOP/s; best of the 8 {brick[k + '_best']:28s}"
                  f" {brick[k + '_best_TFLOPs']:6.1f}:"
                  f" {brick[k + f'_{how}_chosen_TFLOPs'] / brick[k + '_best_TFLOPs']:.3f} of the best")
        print(f"  tuning 8 configs, first launch wall time: parallel {brick[k + '_parallel_wall_ms']:.0f} ms (compile"
              f" {brick[k + '_parallel_compile_ms']:.0f} ms on {brick[k + '_parallel_threads']} threads, timing"
              f" {brick[k + '_parallel_timing_ms']:.0f} ms); serial {brick[k + '_serial_wall_ms']:.0f} ms (compile"
              f" {brick[k + '_serial_compile_ms']:.0f} ms); Triton {triton_s[name] * 1000:.0f} ms"
              f" (chose {triton_s[name + '_chosen']})")
        for how in ("parallel", "serial"):
            print("  " + brick[k + f"_{how}_report"].replace("\n", "\n  "))
    print(json.dumps({"brick": brick, "triton_autotune_s": triton_s}))


MATMUL_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4000, 4000, 4000), (16, 8192, 8192), (1, 8192, 8192)]


def matmul_anchors():
    """cuBLAS (torch.matmul) and Triton's tutorial matmul, TFLOP/s, with Triton's cold first call."""
    anchors = {}
    for dtype, name in ((torch.float16, "fp16"), (torch.bfloat16, "bf16")):
        for (M, N, K) in MATMUL_SHAPES:
            a = torch.randn(M, K, device="cuda", dtype=dtype)
            b = torch.randn(K, N, device="cuda", dtype=dtype)
            c = torch.empty(M, N, device="cuda", dtype=dtype)
            flops = 2 * M * N * K
            key = f"matmul_{name}_{M}x{N}x{K}"
            anchors[key + "_cublas"] = flops / median_ms(lambda: torch.matmul(a, b, out=c)) / 1e9
            start = time.perf_counter()
            run_triton_matmul(a, b, c)
            torch.cuda.synchronize()
            anchors[key + "_triton_first_call_s"] = time.perf_counter() - start
            anchors[key + "_triton"] = flops / median_ms(lambda: run_triton_matmul(a, b, c)) / 1e9
            if M <= 16:
                anchors[key + "_read_flush_cublas"] = flops / median_ms_read_flush(lambda: torch.matmul(a, b, out=c)) / 1e9
                anchors[key + "_read_flush_triton"] = flops / median_ms_read_flush(lambda: run_triton_matmul(a, b, c)) / 1e9
    a = torch.randn(4096, 4096, device="cuda")
    b = torch.randn(4096, 4096, device="cuda")
    torch.backends.cuda.matmul.allow_tf32 = True
    anchors["matmul_tf32_4096x4096x4096_cublas"] = 2 * 4096 ** 3 / median_ms(lambda: a @ b) / 1e9
    torch.backends.cuda.matmul.allow_tf32 = False
    return anchors


def print_matmul(brick, anchors, title="matmul (TFLOP/s)"):
    """TFLOP/s; for a few rows (decode), also the GB/s at which the weights (K x N) stream: TFLOP/s * 1000 / M."""
    print(f"{title:28s} {'Brick':>8s} {'cuBLAS':>8s} {'Triton':>8s}  {'/cuBLAS':>7s} {'/Triton':>8s} {'rel.err':>8s}  weights GB/s (Brick, cuBLAS)")
    keys = [f"matmul_{n}_{M}x{N}x{K}" for n in ("fp16", "bf16") for (M, N, K) in MATMUL_SHAPES]
    keys.append("matmul_tf32_4096x4096x4096")
    keys += [f"matmul_descriptors_{n}_{M}x{N}x{K}" for n in ("fp16", "bf16") for (M, N, K) in MATMUL_SHAPES]
    keys += [f"matmul_{kind}_{n}_{M}x{N}x{K}" for kind in ("ws", "persistent_ws", "persistent_ws_c2", "persistent_tuned")
             for n in ("fp16", "bf16")
             for (M, N, K) in MATMUL_SHAPES if M > 16 and f"matmul_{kind}_{n}_{M}x{N}x{K}_TFLOPs" in brick]
    for key in keys:
        b = brick[key + "_TFLOPs"]
        plain = (key.replace("descriptors_", "").replace("persistent_ws_c2_", "").replace("persistent_ws_", "")
                 .replace("persistent_tuned_", "").replace("ws_", ""))
        cub = anchors[plain + "_cublas"]
        tri = anchors.get(plain + "_triton")
        tri_text = f"{tri:8.1f}" if tri else f"{'-':>8s}"
        ratio = f"{b / tri:8.2f}" if tri else f"{'-':>8s}"
        rows = int(key.split("_")[-1].split("x")[0])
        weights = f"  {b * 1000 / rows:6.0f} {cub * 1000 / rows:6.0f}" if rows <= 16 else ""
        chosen = f"  chose {brick[key + '_chosen']}" if key + "_chosen" in brick else ""
        print(f"{key[7:]:28s} {b:8.1f} {cub:8.1f} {tri_text}  {b / cub:7.2f} {ratio} {brick[key + '_relerr']:8.1e}"
              f"{weights}{chosen}")
    print("decode, L2 flushed by reading (no dirty lines to write back): weights GB/s (Brick, cuBLAS, Triton), /cuBLAS")
    for key in [f"matmul_{n}_{M}x{N}x{K}" for n in ("fp16", "bf16") for (M, N, K) in MATMUL_SHAPES if M <= 16]:
        if key + "_read_flush_TFLOPs" not in brick:
            continue
        rows = int(key.split("_")[-1].split("x")[0])
        b, cub, tri = (brick[key + "_read_flush_TFLOPs"], anchors[key + "_read_flush_cublas"],
                       anchors[key + "_read_flush_triton"])
        print(f"  {key[7:]:26s} {b * 1000 / rows:6.0f} {cub * 1000 / rows:6.0f} {tri * 1000 / rows:6.0f}  {b / cub:5.2f}")
    triton_cold = max(v for k, v in anchors.items() if k.endswith("_triton_first_call_s"))
    print(f"matmul cold first launch (compile + load), median of 5: Brick {brick['matmul_cold_first_launch_ms']:.0f} ms "
          f"({brick['matmul_cold_first_launch_min_ms']:.0f}-{brick['matmul_cold_first_launch_max_ms']:.0f}); "
          f"Triton's first calls (autotuning 4 configs) up to {triton_cold:.1f} s")
    print(f"  {brick.get('matmul_cold_first_launch_log', '')}")
    if "matmul_descriptors_cold_first_launch_ms" in brick:  # sm_90a: the kernel examples/matmul runs there
        print(f"matmul through tensor descriptors (TMA) cold first launch, median of 5: "
              f"{brick['matmul_descriptors_cold_first_launch_ms']:.0f} ms "
              f"({brick['matmul_descriptors_cold_first_launch_min_ms']:.0f}-"
              f"{brick['matmul_descriptors_cold_first_launch_max_ms']:.0f})")
        print(f"  {brick.get('matmul_descriptors_cold_first_launch_log', '')}")
    if "matmul_persistent_ws_cold_first_launch_ms" in brick:  # sm_90a: the persistent_ws rows' kernel
        print(f"matmul persistent warp-specialized cold first launch, median of 5: "
              f"{brick['matmul_persistent_ws_cold_first_launch_ms']:.0f} ms "
              f"({brick['matmul_persistent_ws_cold_first_launch_min_ms']:.0f}-"
              f"{brick['matmul_persistent_ws_cold_first_launch_max_ms']:.0f})")
        print(f"  {brick.get('matmul_persistent_ws_cold_first_launch_log', '')}")


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


def matmul_sweep(binary, configs):
    """Brick's matmul at each config (BM,BN,BK,G,warps,stages), the GPU's own code (BRICK_BENCH_MATMUL_SM=80: sm_80
    code), against cuBLAS in the same run."""
    import re
    results = json.loads(subprocess.run([binary, "--matmul-sweep", *configs], check=True, capture_output=True,
                                        text=True).stdout)
    anchors = matmul_anchors()
    # Keys: matmul_<type>_<M>x<N>x<K>[_bT|_split|_persistent]_cfg<config>[_read_flush]_TFLOPs (or _refused).
    pattern = r"(matmul_\w+?_\d+x\d+x\d+)((?:_bT|_split|_persistent)?)_cfg([\d,]+(?:,ws)?(?:,c\d)?)((?:_read_flush)?)"
    for key, tflops in sorted(results.items()):
        refused = re.fullmatch(pattern + "_refused", key)
        if refused:
            print(f"{refused[1] + refused[2]:30s} cfg {refused[3]:22s} refused: {tflops}")
        m = re.fullmatch(pattern + "_TFLOPs", key)
        if m:
            # cuBLAS where the table measured this shape (and flush); B stored N x K is compared with its K x N
            anchor = anchors.get(m[1] + m[4] + "_cublas")
            versus = f"{tflops / anchor:5.2f} of cuBLAS" if anchor else "    - (no cuBLAS)"
            print(f"{m[1] + m[2] + m[4]:30s} cfg {m[3]:22s} {tflops:7.1f} TFLOP/s  {versus}"
                  f"  rel.err {results[key[:-7] + '_relerr']:.1e}")


def main():
    if sys.argv[1] == "--moe":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import moe
        return moe.main(sys.argv[2], sys.argv[3:])
    if sys.argv[1] == "--attention":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import attention
        return attention.main(sys.argv[2], sys.argv[3:])
    if sys.argv[1] == "--fp8":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import fp8
        return fp8.main(sys.argv[2], sys.argv[3:])
    if sys.argv[1] == "--dot-types":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import dot_types
        return dot_types.main(sys.argv[2], sys.argv[3:])
    if sys.argv[1] == "--autotune":
        return autotune(sys.argv[2])
    if sys.argv[1] == "--sweep":
        return sweep(sys.argv[2])
    if sys.argv[1] == "--matmul-sweep":
        return matmul_sweep(sys.argv[2], sys.argv[3:])
    if sys.argv[1] == "--matmul":
        # The GPU's own code (sm_90a on an H100: wgmma) and the code an A100 gets (sm_80: mma.sync), one run.
        brick = json.loads(subprocess.run([sys.argv[2], "--matmul"], check=True, capture_output=True, text=True).stdout)
        sm80 = json.loads(subprocess.run([sys.argv[2], "--matmul"], check=True, capture_output=True, text=True,
                                         env={**os.environ, "BRICK_BENCH_MATMUL_SM": "80"}).stdout)
        anchors = matmul_anchors()
        print(brick["device"])
        print_matmul(brick, anchors, "matmul, native (TFLOP/s)")
        print_matmul(sm80, anchors, "matmul, sm_80 code (TFLOP/s)")
        print(json.dumps({"brick": brick, "brick_sm80": sm80, "anchors": anchors}))
        return
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
    anchors.update(matmul_anchors())
    print_matmul(brick, anchors)
    print(json.dumps({"brick": brick, "anchors": anchors}))


if __name__ == "__main__":
    main()
