"""Fused attention forward: Brick (brick-bench --attention) against Triton and torch, f16, not causal, one run.

  python3 bench/run.py --attention path/to/brick-bench [CFG...]   (CFG: BLOCK_M,BLOCK_N,warps,stages, a sweep)
  BRICK_BENCH_ATTENTION_SHAPES="heads,seqLen,headDim;..." narrows the shapes (both sides).

Triton's side is the same algorithm written in Triton (online softmax over BLOCK_N keys at a time, exp2 with the
scale folded in, P cast to f16 for the second dot), taking the best of a few tile configs; torch's is
scaled_dot_product_attention (FlashAttention-2 on an H100). TFLOP/s count 4 * heads * seqLen^2 * headDim.
"""
import json
import os
import subprocess

import torch
import triton
import triton.language as tl
from triton.testing import do_bench

SHAPES = [(128, 1024, 64), (32, 4096, 64), (8, 16384, 64), (128, 1024, 128), (32, 4096, 128)]
CONFIGS = [(128, 64, 4, 3), (128, 64, 8, 3), (128, 128, 8, 2), (64, 64, 4, 3), (128, 32, 4, 3)]


@triton.jit
def triton_attention(Q, K, V, O, seq_len, scale, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr):
    base = tl.program_id(1).to(tl.int64) * seq_len * HEAD_DIM
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, HEAD_DIM)
    keys = tl.arange(0, BLOCK_N)
    q = tl.load(Q + base + rows[:, None] * HEAD_DIM + cols[None, :])
    scale_log2 = scale * 1.4426950408889634
    row_max = tl.full([BLOCK_M], float("-inf"), tl.float32)
    row_sum = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    for start in range(0, seq_len, BLOCK_N):
        k_t = tl.load(K + base + (start + keys)[None, :] * HEAD_DIM + cols[:, None])
        scores = tl.dot(q, k_t)
        new_max = tl.maximum(row_max, tl.max(scores, 1) * scale_log2)
        p = tl.math.exp2(scores * scale_log2 - new_max[:, None])
        correction = tl.math.exp2(row_max - new_max)
        row_sum = row_sum * correction + tl.sum(p, 1)
        v = tl.load(V + base + (start + keys)[:, None] * HEAD_DIM + cols[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc * correction[:, None])
        row_max = new_max
    tl.store(O + base + rows[:, None] * HEAD_DIM + cols[None, :], (acc / row_sum[:, None]).to(tl.float16))


def median_ms(fn):
    return do_bench(fn, warmup=10, rep=100, return_mode="median")


def shapes():
    value = os.environ.get("BRICK_BENCH_ATTENTION_SHAPES", "")
    return [tuple(int(x) for x in item.split(",")) for item in value.split(";")] if value else SHAPES


def anchors():
    results = {}
    for heads, seq_len, d in shapes():
        q, k, v = (torch.randn(heads, seq_len, d, device="cuda", dtype=torch.float16) for _ in range(3))
        scale = d ** -0.5
        flops = 4 * heads * seq_len * seq_len * d
        ref = torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None], scale=scale)[0]
        key = f"attention_fp16_{heads}x{seq_len}x{d}"
        results[key + "_torch_TFLOPs"] = flops / median_ms(
            lambda: torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None], scale=scale)) / 1e9
        best, best_config = 0.0, None
        out = torch.empty_like(q)
        for bm, bn, warps, stages in CONFIGS:
            run = lambda: triton_attention[(seq_len // bm, heads)](q, k, v, out, seq_len, scale, HEAD_DIM=d, BLOCK_M=bm,
                                                                   BLOCK_N=bn, num_warps=warps, num_stages=stages)
            try:
                run()
            except Exception as e:  # a config that does not fit (shared memory): skipped
                print(f"# triton {key} {bm},{bn},{warps},{stages}: {type(e).__name__}")
                continue
            torch.cuda.synchronize()
            if not torch.allclose(out, ref, atol=2e-2, rtol=0):
                raise SystemExit(f"Triton's attention is wrong at {key} with {bm},{bn},{warps},{stages}")
            tflops = flops / median_ms(run) / 1e9
            if tflops > best:
                best, best_config = tflops, f"{bm},{bn},{warps},{stages}"
        results[key + "_triton_TFLOPs"] = best
        results[key + "_triton_config"] = best_config
    return results


def main(binary, configs):
    brick = json.loads(subprocess.run([binary, "--attention", *configs], check=True, capture_output=True,
                                      text=True).stdout)
    theirs = anchors()
    print(brick["device"])
    print(f"{'attention f16 (TFLOP/s)':34s} {'Brick':>7s} {'Triton':>7s} {'torch':>7s} {'/Triton':>8s} {'/torch':>7s}")
    for heads, seq_len, d in shapes():
        key = f"attention_fp16_{heads}x{seq_len}x{d}"
        ours = [v for k, v in brick.items() if k.startswith(key) and k.endswith("_TFLOPs")]
        if not ours:
            continue
        best = max(ours)
        tri, tor = theirs[key + "_triton_TFLOPs"], theirs[key + "_torch_TFLOPs"]
        print(f"{heads:4d} heads x {seq_len:5d} x {d:3d}{'':13s} {best:7.1f} {tri:7.1f} {tor:7.1f} "
              f"{best / tri:8.2f} {best / tor:7.2f}   (Triton {theirs[key + '_triton_config']})")
    print(json.dumps({"brick": brick, "anchors": theirs}))
