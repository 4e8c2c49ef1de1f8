"""Fused attention forward: Brick (brick-bench --attention) against cuDNN, FlashAttention-2 and Triton, one run.

  python3 bench/run.py --attention path/to/brick-bench [CFG...]   (CFG: BLOCK_M,BLOCK_N,warps,stages, a sweep)
  BRICK_BENCH_ATTENTION_SET=full   every S of 1k, 2k, 4k, 8k, 16k at every head dim (default: the anchors' shapes)
  BRICK_BENCH_ATTENTION_CASES="dtype,BxS or L1:L2:...,qHeads,kvHeads,headDim[/vDim],causal;..." replaces the list.
  BRICK_BENCH_ATTENTION_PLOT=file.png   draws TFLOP/s against sequence length per head dim (needs matplotlib)

The shapes are FlashAttention-3's: B * S = 16k tokens, 16 heads, f16 and bf16, causal and not, head dims 64, 96,
128, 256 and 192 for Q.K with 128 for V (DeepSeek-V3's prefill); grouped-query attention (32 query heads over 8 K/V
heads) at 4k; a packed batch of lengths drawn from 128 to 8192 (varlen).
Brick runs in its own process first (brick-bench), then the anchors here: torch's scaled_dot_product_attention on
cuDNN (SDPBackend.CUDNN_ATTENTION) and on FlashAttention-2 (SDPBackend.FLASH_ATTENTION), on [B, H, S, D] tensors,
and the same online-softmax algorithm in Triton (the best of a few tile configs; power-of-two head dims equal for Q
and V, not varlen). TFLOP/s count useful FLOPs only, for everyone alike: 2 x (D + DV) x heads x the (query, key)
pairs a query sees (about half when causal). A
varlen batch has no cuDNN or FA2 figure through SDPA; judge it against the dense case of the same head dim.
"""
import json
import os
import random
import subprocess

import torch
import triton
import triton.language as tl
from triton.testing import do_bench

TRITON_CONFIGS = [(128, 64, 4, 3), (128, 64, 8, 3), (128, 128, 8, 2)]


@triton.jit
def triton_attention(Q, K, V, O, seq_len, scale, stride_b, stride_h, stride_s, kv_stride_b, kv_stride_h,
                     kv_stride_s, GROUP: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    batch, head = tl.program_id(2), tl.program_id(1)
    q_base = batch.to(tl.int64) * stride_b + head * stride_h
    kv_base = batch.to(tl.int64) * kv_stride_b + (head // GROUP) * kv_stride_h
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, HEAD_DIM)
    keys = tl.arange(0, BLOCK_N)
    q = tl.load(Q + q_base + rows[:, None] * stride_s + cols[None, :])
    scale_log2 = scale * 1.4426950408889634
    row_max = tl.full([BLOCK_M], float("-inf"), tl.float32)
    row_sum = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    full_end = (tl.program_id(0) * BLOCK_M // BLOCK_N) * BLOCK_N if CAUSAL else seq_len
    end = tl.minimum((tl.program_id(0) + 1) * BLOCK_M, seq_len) if CAUSAL else seq_len
    for start in range(0, end, BLOCK_N):
        k_t = tl.load(K + kv_base + (start + keys)[None, :] * kv_stride_s + cols[:, None])
        scores = tl.dot(q, k_t)
        if CAUSAL:
            if start >= full_end:
                scores = tl.where((start + keys)[None, :] <= rows[:, None], scores, float("-inf"))
        new_max = tl.maximum(row_max, tl.max(scores, 1) * scale_log2)
        p = tl.math.exp2(scores * scale_log2 - new_max[:, None])
        correction = tl.math.exp2(row_max - new_max)
        row_sum = row_sum * correction + tl.sum(p, 1)
        v = tl.load(V + kv_base + (start + keys)[:, None] * kv_stride_s + cols[None, :])
        acc = tl.dot(p.to(v.dtype), v, acc * correction[:, None])
        row_max = new_max
    tl.store(O + q_base + rows[:, None] * stride_s + cols[None, :], (acc / row_sum[:, None]).to(O.dtype.element_ty))


def median_ms(fn):
    return do_bench(fn, warmup=10, rep=100, return_mode="median")


def varlen_lengths(seed=0, total=16384):
    """Lengths drawn uniformly from 128 to 8192 until they fill about `total` tokens."""
    rng, lengths = random.Random(seed), []
    while sum(lengths) < total:
        lengths.append(rng.randint(128, 8192))
    return lengths


def cases():
    if os.environ.get("BRICK_BENCH_ATTENTION_CASES"):
        return os.environ["BRICK_BENCH_ATTENTION_CASES"].split(";")
    full = os.environ.get("BRICK_BENCH_ATTENTION_SET") == "full"
    listed = []
    for dtype in ("bf16", "f16"):
        for d in (64, 96, 128, "192/128", 256):
            lengths = ((1024, 2048, 4096, 8192, 16384) if full else
                       (8192,) if d == 256 else (4096,) if d in (96, "192/128") else (1024, 4096, 16384))
            for s in lengths:
                for causal in (0, 1):
                    listed.append(f"{dtype},{16384 // s}x{s},16,16,{d},{causal}")
    for causal in (0, 1):
        listed.append(f"bf16,4x4096,32,8,128,{causal}")
        listed.append(f"bf16,{':'.join(map(str, varlen_lengths()))},16,16,128,{causal}")
    return listed


def parse(case):
    dtype, lengths, hq, hkv, d, causal = case.split(",")
    if "x" in lengths:
        b, s = (int(x) for x in lengths.split("x"))
        lengths = [s] * b
    else:
        lengths = [int(x) for x in lengths.split(":")]
    d, _, dv = d.partition("/")
    return dtype, lengths, int(hq), int(hkv), (int(d), int(dv or d)), causal == "1"


def useful_flops(lengths, hq, dims, causal):
    return 2 * sum(dims) * hq * sum(s * (s + 1) // 2 if causal else s * s for s in lengths)


def dims_name(dims):
    return f"{dims[0]}" if dims[0] == dims[1] else f"{dims[0]}/{dims[1]}"


def anchors(case):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    dtype, lengths, hq, hkv, dims, causal = parse(case)
    d, dv = dims
    result = {}
    if len(set(lengths)) != 1:
        return result  # varlen: no SDPA figure
    b, s = len(lengths), lengths[0]
    torch_dtype = torch.bfloat16 if dtype == "bf16" else torch.float16
    q = torch.randn(b, hq, s, d, device="cuda", dtype=torch_dtype)
    k = torch.randn(b, hkv, s, d, device="cuda", dtype=torch_dtype)
    v = torch.randn(b, hkv, s, dv, device="cuda", dtype=torch_dtype)
    flops = useful_flops(lengths, hq, dims, causal)
    sdpa = torch.nn.functional.scaled_dot_product_attention
    gqa = hq != hkv
    for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("fa2", SDPBackend.FLASH_ATTENTION)):
        try:
            with sdpa_kernel([backend]):
                result[name] = flops / median_ms(lambda: sdpa(q, k, v, is_causal=causal, enable_gqa=gqa)) / 1e9
        except Exception as e:  # a backend that does not take the case
            print(f"# {name} {case}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH]):
        ref = sdpa(q[:1], k[:1], v[:1], is_causal=causal, enable_gqa=gqa)
    if d != dv or d & (d - 1):
        return result  # the Triton kernel here takes one power-of-two head dim
    out = torch.empty_like(q)
    best = 0.0
    for bm, bn, warps, stages in TRITON_CONFIGS:
        if s % bm or s % bn or (d == 256 and bn > 64):
            continue
        run = lambda: triton_attention[(s // bm, hq, b)](
            q, k, v, out, s, d ** -0.5, q.stride(0), q.stride(1), q.stride(2), k.stride(0), k.stride(1), k.stride(2),
            GROUP=hq // hkv, HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, CAUSAL=causal, num_warps=warps, num_stages=stages)
        try:
            run()
            torch.cuda.synchronize()
        except Exception as e:  # a config that does not fit (shared memory, registers): skipped
            print(f"# triton {case} {bm},{bn},{warps},{stages}: {type(e).__name__}")
            continue
        if not torch.allclose(out[:1], ref, atol=2e-2, rtol=0):
            raise SystemExit(f"Triton's attention is wrong at {case} with {bm},{bn},{warps},{stages}")
        best = max(best, flops / median_ms(run) / 1e9)
    if best:
        result["triton"] = best
    return result


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    dtypes = sorted({dtype for dtype, *_ in rows})
    columns = sorted({(d, causal) for _, d, causal, *_ in rows}, key=lambda c: (int(c[0].split("/")[0]), c[1]))
    fig, axes = plt.subplots(len(dtypes), len(columns), figsize=(3.2 * len(columns), 3 * len(dtypes)), squeeze=False)
    for ax, (dtype, (d, causal)) in zip(axes.flat, [(t, c) for t in dtypes for c in columns]):
        mine = sorted((s, r) for dt, dd, c, s, r in rows if (dt, dd, c) == (dtype, d, causal))
        for name in ("brick", "cudnn", "fa2", "triton"):
            points = [(s, r[name]) for s, r in mine if name in r]
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
        ax.set_xscale("log", base=2)
        ax.set_title(f"{dtype}, D {d}{', causal' if causal else ''}")
        ax.set_xlabel("sequence length")
        ax.set_ylabel("TFLOP/s")
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"# chart: {path}")


def main(binary, configs):
    listed = cases()
    env = dict(os.environ, BRICK_BENCH_ATTENTION_CASES=";".join(listed))
    brick = json.loads(subprocess.run([binary, "--attention", *configs], check=True, capture_output=True, text=True,
                                      env=env).stdout)
    print(brick["device"])
    print(f"{'attention (TFLOP/s)':40s} {'Brick':>7s} {'cuDNN':>7s} {'FA2':>7s} {'Triton':>7s} {'/cuDNN':>7s} "
          f"{'/FA2':>6s} {'/Triton':>7s}  error")
    theirs, chart = {}, []
    for case in listed:
        ours = [v for k, v in brick.items() if k.startswith(case) and k.endswith("_TFLOPs")]
        if not ours:
            continue
        mine = max(ours)
        row = anchors(case)
        theirs[case] = row
        dtype, lengths, hq, hkv, dims, causal = parse(case)
        name = (f"{dtype} {len(lengths)}x{lengths[0]}" if len(set(lengths)) == 1 else
                f"{dtype} varlen {len(lengths)} seqs") + f" h{hq}/{hkv} d{dims_name(dims)}{' causal' if causal else ''}"
        cell = lambda key: f"{row[key]:7.1f}" if key in row else f"{'-':>7s}"
        ratio = lambda key, width: f"{mine / row[key]:{width}.2f}" if key in row else f"{'-':>{width}s}"
        error = max(v for k, v in brick.items() if k.startswith(case) and k.endswith("_error"))
        print(f"{name:40s} {mine:7.1f} {cell('cudnn')} {cell('fa2')} {cell('triton')} {ratio('cudnn', 7)} "
              f"{ratio('fa2', 6)} {ratio('triton', 7)}  {error:.1e}")
        if len(set(lengths)) == 1 and hq == hkv:
            chart.append((dtype, dims_name(dims), causal, lengths[0], dict(row, brick=mine)))
    if os.environ.get("BRICK_BENCH_ATTENTION_PLOT") and chart:
        plot(chart, os.environ["BRICK_BENCH_ATTENTION_PLOT"])
    print(json.dumps({"brick": brick, "anchors": theirs}))
