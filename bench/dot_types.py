"""tf32, s8 and e4m3 GEMMs: Brick (brick-bench --dot-types) against cuBLAS in one run.

  bench/run gpu-package --dot-types CFG...   (CFG: BLOCK_M,BLOCK_N,BLOCK_K,GROUP_M,warps,stages[,ws], BLOCK_K in
                                              tf32 elements; s8 takes 4 times as many, rows of the same bytes)
  BRICK_BENCH_DOT_SHAPES="M,N,K;..." replaces the shape (default 4096^3).

A is M x K. Two layouts of B: N x K (along K, as nn.Linear keeps a weight: the only layout wgmma reads 32- and 8-bit
operands in; Brick's examples::matmulDescriptorsTransposedB, cuBLAS's a @ b.t()) and K x N (Brick's examples::matmul,
cuBLAS's a @ b), Brick's at each config (K x N without warp specialization). e4m3: no scales, bf16 out, against
cuBLAS's FP8 (torch._scaled_mm, scales of 1) with B along K in both rows (it takes no other). f32 inputs are normal, s8 uniform in [-127, 127]. The error column is the
relative L2 error against float64 on sampled elements (Brick) or on the whole product (cuBLAS); s8 sums exactly.
"""
import json
import os
import subprocess

import torch
from triton.testing import do_bench


def shapes():
    text = os.environ.get("BRICK_BENCH_DOT_SHAPES") or "4096,4096,4096"
    return [tuple(int(x) for x in s.split(",")) for s in text.split(";")]


def median_tflops(flops, fn):
    return flops / do_bench(fn, warmup=10, rep=100, return_mode="median") / 1e9


def relative_error(got, a, b_t):
    ref = a.double() @ b_t.double().t()
    return ((got.double() - ref).norm() / ref.norm()).item()


def anchors(m, n, k):
    flops = 2 * m * n * k
    out = {}
    a = torch.randn(m, k, device="cuda")
    b_t = torch.randn(n, k, device="cuda")
    b = b_t.t().contiguous()
    torch.backends.cuda.matmul.allow_tf32 = True
    out["tf32_bT"] = median_tflops(flops, lambda: a @ b_t.t())
    out["tf32_b"] = median_tflops(flops, lambda: a @ b)
    out["tf32_error"] = relative_error(a @ b_t.t(), a, b_t)
    torch.backends.cuda.matmul.allow_tf32 = False
    a8 = torch.randint(-127, 128, (m, k), device="cuda", dtype=torch.int8)
    b8_t = torch.randint(-127, 128, (n, k), device="cuda", dtype=torch.int8)
    out["s8_bT"] = median_tflops(flops, lambda: torch._int_mm(a8, b8_t.t()))
    f8 = a.to(torch.float8_e4m3fn)
    f8_t = b_t.to(torch.float8_e4m3fn)
    one = torch.ones((), device="cuda")
    # cuBLAS's FP8 GEMM takes B along K only (torch._scaled_mm refuses a K x N B): both rows are against it.
    out["e4m3_bT"] = out["e4m3_b"] = median_tflops(
        flops, lambda: torch._scaled_mm(f8, f8_t.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
    try:  # cuBLASLt's int8 GEMM takes B along K only; torch copies a K x N B first, or refuses it
        b8 = b8_t.t().contiguous()
        out["s8_b"] = median_tflops(flops, lambda: torch._int_mm(a8, b8))
    except RuntimeError as e:
        print(f"# cuBLAS s8 with B K x N: {type(e).__name__}")
    return out


def main(binary, configs):
    listed = shapes()
    env = dict(os.environ, BRICK_BENCH_DOT_SHAPES=";".join(",".join(map(str, s)) for s in listed))
    brick = json.loads(subprocess.run([binary, "--dot-types", *configs], check=True, capture_output=True, text=True,
                                      env=env).stdout)
    print(brick["device"])
    print(f"{'GEMM (TFLOP/s)':28s} {'Brick':>7s} {'config':>22s} {'cuBLAS':>7s} {'ratio':>6s}  error (Brick, cuBLAS)")
    theirs = {}
    for m, n, k in listed:
        shape = f"{m}x{n}x{k}"
        anchor = anchors(m, n, k)
        theirs[shape] = anchor
        for name in ("tf32", "s8", "e4m3"):
            key = f"{name}_{shape}"
            ours = {c: v for c, v in brick.items() if c.startswith(key + "_bT_cfg") and c.endswith("_TFLOPs")}
            rows = []
            if ours:
                best = max(ours, key=ours.get)
                rows.append(("B N x K", ours[best], configs[int(best[len(key) + 7:-7])], anchor.get(f"{name}_bT"),
                             brick[best[:-7] + "_error"]))
            ours = {c: v for c, v in brick.items() if c.startswith(key + "_b_cfg") and c.endswith("_TFLOPs")}
            if ours:
                best = max(ours, key=ours.get)
                rows.append(("B K x N", ours[best], configs[int(best[len(key) + 6:-7])], anchor.get(f"{name}_b"),
                             brick[best[:-7] + "_error"]))
            for layout, tflops, config, cublas, error in rows:
                ratio = f"{tflops / cublas:6.2f}" if cublas else f"{'-':>6s}"
                theirs_error = {"tf32": f"{anchor['tf32_error']:.1e}", "s8": "exact", "e4m3": "-"}[name]
                print(f"{name + ' ' + shape + ' ' + layout:28s} {tflops:7.1f} {config:>22s} "
                      f"{(cublas or 0):7.1f} {ratio}  {error:.1e}, {theirs_error}")
    print(json.dumps({"brick": brick, "anchors": theirs}))
