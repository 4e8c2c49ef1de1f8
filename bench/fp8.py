"""FP8 GEMM: Brick (brick-bench --fp8, examples::matmulDescriptorsTransposedB<f8e4m3, bf16>) against cuBLAS's FP8
(torch._scaled_mm, per-tensor scales of 1) and its bf16 GEMM, one run.

  bench/run gpu-package --fp8 CFG...      (CFG: BLOCK_M,BLOCK_N,BLOCK_K,GROUP_M,warps,stages[,ws], a sweep)
  BRICK_BENCH_FP8_SHAPES="M,N,K;..." replaces the shapes (default: 4096^3, 8192^3, DeepSeek-V3's M 4096 GEMMs).

A is M x K and B is N x K (a weight), both e4m3 along K (what FP8 tensor cores read), C is bf16. TFLOP/s are
2 M N K over the median time. Two Brick kernels: without scales (partial sums not promoted: its relative error
against float64 is printed beside), and examples::matmulFp8BlockScaled (DeepSeek-V3's 1 x 128 and 128 x 128 block
scales, promoted to f32 every 128 of K) against cuBLAS's block-scaled _scaled_mm. Then each GEMM's activations
(M x K, bf16) quantized to e4m3 per 1 x 128 group (examples::quantizeFp8) against DeepGEMM's torch reference and
a device copy of the same bytes.
"""
import json
import os
import subprocess

import torch
from triton.testing import do_bench

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 2112, 7168), (4096, 24576, 1536), (4096, 7168, 16384),
          (4096, 4096, 7168), (4096, 7168, 2048)]


def shapes():
    if os.environ.get("BRICK_BENCH_FP8_SHAPES"):
        return [tuple(int(x) for x in s.split(",")) for s in os.environ["BRICK_BENCH_FP8_SHAPES"].split(";")]
    return SHAPES


def anchors(m, n, k):
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
    one = torch.ones((), device="cuda")
    flops = 2 * m * n * k
    fp8 = flops / do_bench(lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
                           warmup=10, rep=100, return_mode="median") / 1e9
    block = 0.0
    try:  # DeepSeek-V3's scheme: 1x128 blocks of A, 128x128 blocks of B (the anchors' call)
        sa = torch.ones(m, k // 128, device="cuda").t().contiguous().t()
        sb = torch.ones(n // 128, k // 128, device="cuda").t()
        block = flops / do_bench(lambda: torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16),
                                 warmup=10, rep=100, return_mode="median") / 1e9
    except Exception as e:  # shapes cuBLAS's block scaling does not take
        print(f"# cuBLAS block-scaled {m}x{n}x{k}: {type(e).__name__}")
    x, y = a.to(torch.bfloat16), b.to(torch.bfloat16)
    bf16 = flops / do_bench(lambda: x @ y.t(), warmup=10, rep=100, return_mode="median") / 1e9
    rows, columns = torch.ones(m, 1, device="cuda"), torch.ones(1, n, device="cuda")
    rowwise = flops / do_bench(lambda: torch._scaled_mm(a, b.t(), scale_a=rows, scale_b=columns,
                                                        out_dtype=torch.bfloat16),
                               warmup=10, rep=100, return_mode="median") / 1e9
    return fp8, bf16, block, rowwise


def quantize_anchors(m, k):
    """GB/s of DeepGEMM's reference activation quantization (torch, eager) and of a device copy of the same bytes
    (read M K bf16, write M K bytes and the scales), both counted as quantize_fp8's bytes."""
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)

    def reference():
        groups = x.view(m, k // 128, 128).float()
        amax = groups.abs().amax(dim=2).clamp(1e-4)
        codes = (groups * (448.0 / amax.unsqueeze(2))).to(torch.float8_e4m3fn).view(m, k)
        return codes, (amax / 448.0).t().contiguous()

    moved = 3 * m * k + 4 * m * (k // 128)
    torch_gbps = moved / do_bench(reference, warmup=10, rep=100, return_mode="median") / 1e6
    source = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
    target = torch.empty_like(source)
    copy_gbps = moved / do_bench(lambda: target.copy_(source), warmup=10, rep=100, return_mode="median") / 1e6
    return torch_gbps, copy_gbps


def main(binary, configs):
    listed = shapes()
    env = dict(os.environ, BRICK_BENCH_FP8_SHAPES=";".join(",".join(map(str, s)) for s in listed))
    brick = json.loads(subprocess.run([binary, "--fp8", *configs], check=True, capture_output=True, text=True,
                                      env=env).stdout)
    print(brick["device"])
    print(f"{'FP8 GEMM (TFLOP/s)':24s} {'Brick':>7s} {'config':>22s} {'cuBLAS fp8':>10s} {'cuBLAS bf16':>11s} "
          f"{'/fp8':>6s} {'/bf16':>6s}  error")
    theirs = {}
    for m, n, k in listed:
        key = f"{m},{n},{k}"
        ours = {name: value for name, value in brick.items() if name.startswith(key + "_cfg") and name.endswith("_TFLOPs")}
        if not ours:
            continue
        best = max(ours, key=ours.get)
        fp8, bf16, block, rowwise = anchors(m, n, k)
        theirs[key] = {"cublas_fp8": fp8, "cublas_bf16": bf16, "cublas_block_scaled": block, "cublas_rowwise": rowwise}
        config = configs[int(best[len(key) + 4:-7])]
        error = brick[best[:-7] + "_error"]
        # Decode (few rows): the rate at which the N x K e4m3 weights stream, Brick's and cuBLAS FP8's.
        weights = f"  weights {ours[best] * 500 / m:5.0f} GB/s (cuBLAS {fp8 * 500 / m:5.0f})" if m <= 128 else ""
        print(f"{m}x{n}x{k:<12} {ours[best]:7.1f} {config:>22s} {fp8:10.1f} {bf16:11.1f} {ours[best] / fp8:6.2f} "
              f"{ours[best] / bf16:6.2f}  {error:.1e}{weights}")
        # Split along K (BRICK_BENCH_FP8_SPLITS), both launches: beside cuBLAS FP8.
        splits = {name: value for name, value in brick.items()
                  if name.startswith(key + "_split") and name.endswith("_TFLOPs")}
        for split in sorted({name[len(key) + 1:].split("_")[0] for name in splits}):
            mine = {name: value for name, value in splits.items() if name.startswith(f"{key}_{split}_cfg")}
            best = max(mine, key=mine.get)
            config = configs[int(best[len(f"{key}_{split}_cfg"):-7])]
            print(f"{'  ' + split:24s} {mine[best]:7.1f} {config:>22s} {fp8:10.1f} {'':11s} {mine[best] / fp8:6.2f} "
                  f"{'':6s}  {brick[best[:-7] + '_error']:.1e}  weights {mine[best] * 500 / m:5.0f} GB/s")
        # The scaled kernels, each beside cuBLAS's kernel with the same scales.
        for tag, label, anchor, anchor_label in (("rowwise", "rowwise-scaled", rowwise, "(cuBLAS rowwise)"),
                                                 ("block", "block-scaled", block, "(cuBLAS block-scaled)")):
            scaled = {name: value for name, value in brick.items()
                      if name.startswith(f"{key}_{tag}_cfg") and name.endswith("_TFLOPs")}
            if not scaled:
                continue
            best = max(scaled, key=scaled.get)
            config = configs[int(best[len(f"{key}_{tag}_cfg"):-7])]
            versus = f"{scaled[best] / anchor:6.2f}" if anchor else f"{'-':>6s}"
            print(f"{'  ' + label:24s} {scaled[best]:7.1f} {config:>22s} {anchor:10.1f} {anchor_label:>11s} "
                  f"{versus} {'':6s}  {brick[best[:-7] + '_error']:.1e}")
    print(f"{'quantize to e4m3 (GB/s)':24s} {'Brick':>7s} {'block':>9s} {'torch':>7s} {'copy':>7s} {'/torch':>7s} {'/copy':>6s}")
    for m, n, k in listed:
        key = f"{m},{n},{k}_quantize_"
        ours = {name: value for name, value in brick.items() if name.startswith(key)}
        if not ours or f"quantize {m}x{k}" in theirs:
            continue
        best = max(ours, key=ours.get)
        torch_gbps, copy_gbps = quantize_anchors(m, k)
        theirs[f"quantize {m}x{k}"] = {"torch": torch_gbps, "copy": copy_gbps}
        print(f"{m}x{k:<19} {ours[best]:7.0f} {best[len(key):-5]:>9s} {torch_gbps:7.0f} {copy_gbps:7.0f} "
              f"{ours[best] / torch_gbps:7.2f} {ours[best] / copy_gbps:6.2f}")
    print(json.dumps({"brick": brick, "anchors": theirs}))
