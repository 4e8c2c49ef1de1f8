"""The MoE layer: Brick (brick-bench --moe) against Triton's fused_moe algorithm and a torch per-expert loop, one run.

  python3 bench/run.py --moe path/to/brick-bench [CFG...]   (CFG: brick-bench --moe's configs, a sweep; a config
                                                             given again is timed again: A B A B)
  BRICK_BENCH_MOE_MODELS=mixtral BRICK_BENCH_MOE_TOKENS=1,16 narrow the shapes (both sides).

Triton's side is the algorithm vLLM and SGLang run (vLLM's fused_moe_kernel, written out below): routing and the
block alignment in torch (no host synchronization: the GEMMs launch for the largest padded size, as vLLM's do, and
read the padded total on the device), GEMM 1 over w13 with N = 2I, silu(gate) * up in torch, GEMM 2 with the
routing weights multiplied in, and the sum over top-k in torch. vLLM does the alignment, the activation and the
sum in CUDA kernels of its own, so the layer times here carry torch's extra launches; the GEMMs' times ("Triton
GEMMs") are the floor of vLLM's layer. Each Triton GEMM takes the best of the configs the anchors sweep (vLLM's
tuned H100 Mixtral configs among them), one BLOCK_M for both GEMMs (the layer's), best GEMM 1 alone separately.
The chosen layer and GEMM 1 are then timed as brick-bench times Brick's: after the GPU idled a second, the median
of 20 calls with L2 flushed (at 4096 tokens the H100 reaches its power limit; timed right after other work,
either side measured 5-10% slower).
"""
import json
import os
import shutil
import subprocess
import tempfile
import time

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from triton.testing import do_bench

from timing import median_event_ms

MODELS = [("mixtral", 8, 2, 4096, 14336, False), ("deepseekv3", 256, 8, 7168, 2048, True)]
TOKENS = [1, 16, 128, 512, 4096]
# (BM, BN, BK, GROUP, warps, stages): generic ones plus vLLM's tuned H100 Mixtral configs (as ../shared/anchors).
CONFIGS = [(16, 64, 128, 1, 4, 4), (64, 128, 64, 8, 4, 4), (128, 128, 64, 8, 8, 3), (128, 256, 64, 8, 8, 3),
           (16, 64, 256, 16, 8, 5), (16, 64, 128, 64, 4, 3), (64, 128, 128, 1, 8, 4), (128, 256, 64, 16, 8, 4),
           (16, 128, 128, 16, 4, 3), (64, 128, 128, 16, 4, 3)]


def median_ms(fn):
    return do_bench(fn, warmup=10, rep=60, return_mode="median")


FLUSH = []


def median_ms_after_idle(fn, reps=20):
    """As brick-bench times its layer and GEMM 1: after the GPU idled a second (at 4096 tokens an H100 reaches its
    700 W limit within a few hundred ms, and its clocks fall), one warm-up call, then the median of `reps` calls,
    each after a 256 MB memset that flushes L2."""
    if not FLUSH:
        FLUSH.append(torch.empty(256 << 20, dtype=torch.uint8, device="cuda"))
    torch.cuda.synchronize()
    time.sleep(1)
    return median_event_ms(fn, lambda rep: FLUSH[0].fill_(rep & 255), reps)


def listed(variable, item):
    value = os.environ.get(variable, "")
    return not value or str(item) in value.split(",")


@triton.jit
def grouped_block(N, BN: tl.constexpr, G: tl.constexpr):
    """This program's block of sorted rows and tile of N, blocks taken G at a time (Triton's grouped order)."""
    pid = tl.program_id(0)
    num_blocks = tl.cdiv(tl.num_programs(0), tl.cdiv(N, BN))
    npn = tl.cdiv(N, BN)
    group = pid // (G * npn)
    first = group * G
    gs = min(num_blocks - first, G)
    pm = first + ((pid % (G * npn)) % gs)
    pn = (pid % (G * npn)) // gs
    return pm, pn


@triton.jit
def fused_moe_kernel(a, w, c, topk_weights, sorted_ids, block_expert, total_padded, N, K, a_rows_per_pair, num_valid,
                     sam, sak, swe, swn, swk, scm, scn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                     G: tl.constexpr, MUL_ROUTED_WEIGHT: tl.constexpr):
    pm, pn = grouped_block(N, BN, G)
    if pm * BM >= tl.load(total_padded):
        return
    offs_m = pm * BM + tl.arange(0, BM)
    tok = tl.load(sorted_ids + offs_m)
    valid = tok < num_valid
    e = tl.load(block_expert + pm).to(tl.int64)
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    pa = a + (tok[:, None] // a_rows_per_pair) * sam + rk[None, :] * sak
    pw = w + e * swe + rn[None, :] * swn + rk[:, None] * swk
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = tl.load(pa, mask=valid[:, None] & (rk[None, :] < K - k * BK), other=0.0)
        wv = tl.load(pw, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(av, wv, acc)
        pa += BK * sak
        pw += BK * swk
    if MUL_ROUTED_WEIGHT:
        acc = acc * tl.load(topk_weights + tok, mask=valid, other=0.0)[:, None]
    cn = pn * BN + tl.arange(0, BN)
    tl.store(c + tok[:, None] * scm + cn[None, :] * scn, acc.to(c.dtype.element_ty),
             mask=valid[:, None] & (cn[None, :] < N))


@triton.jit
def fused_moe_fp8_kernel(a, a_scale, w, w_scale, c, sorted_ids, block_expert, total_padded, N, K, a_rows_per_pair,
                         num_valid, sam, sasm, sask, swe, swn, swk, sse, ssn, ssk, scm, scn, BM: tl.constexpr,
                         BN: tl.constexpr, G: tl.constexpr):
    """fused_moe_kernel's GEMM with e4m3 operands and DeepSeek-V3's block scales, as vLLM's w8a8 block path runs it:
    a token's 1 x 128 groups (a_scale [T, K / 128]) and the weights' 128 x 128 blocks (w_scale [E, N / 128, K /
    128]); K steps of 128, each product scaled into the f32 accumulator; bf16 out."""
    pm, pn = grouped_block(N, BN, G)
    if pm * BM >= tl.load(total_padded):
        return
    offs_m = pm * BM + tl.arange(0, BM)
    tok = tl.load(sorted_ids + offs_m)
    valid = tok < num_valid
    e = tl.load(block_expert + pm).to(tl.int64)
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, 128)
    row = tok // a_rows_per_pair
    pa = a + row[:, None] * sam + rk[None, :]
    pw = w + e * swe + rn[None, :] * swn + rk[:, None] * swk
    psa = a_scale + row * sasm
    psw = w_scale + e * sse + (rn // 128) * ssn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, 128)):
        av = tl.load(pa, mask=valid[:, None], other=0.0)
        wv = tl.load(pw)
        sa = tl.load(psa + k * sask, mask=valid, other=0.0)
        sw = tl.load(psw + k * ssk)
        acc += tl.dot(av, wv) * sa[:, None] * sw[None, :]
        pa += 128
        pw += 128 * swk
    cn = pn * BN + tl.arange(0, BN)
    tl.store(c + tok[:, None] * scm + cn[None, :] * scn, acc.to(c.dtype.element_ty),
             mask=valid[:, None] & (cn[None, :] < N))


# (BM, BN, G, warps, stages) for the FP8 GEMM 1 (K steps of 128).
FP8_CONFIGS = [(16, 128, 1, 4, 3), (64, 128, 1, 4, 3), (64, 128, 16, 4, 4), (128, 128, 8, 8, 3), (128, 128, 16, 4, 3)]


def quantize_groups(x):
    """DeepSeek-V3's activation quantization in torch: e4m3 codes and one f32 scale per 1 x 128 group."""
    T, K = x.shape
    groups = x.float().view(T, K // 128, 128)
    amax = groups.abs().amax(-1).clamp(min=1e-4)
    codes = (groups * (448.0 / amax)[..., None]).to(torch.float8_e4m3fn).view(T, K)
    return codes, (amax / 448.0).contiguous()


def triton_fp8_gate_up(x, ids, E, topk, H, I):
    """Triton's FP8 GEMM 1 (fused_moe_fp8_kernel) over the routing `ids`, e4m3 w13 with 128 x 128 block scales and x
    quantized per token group (not timed: vLLM quantizes in a kernel of its own). The best of FP8_CONFIGS, timed
    after idling as Brick's GEMM 1 is, and its relative error against a float64-free torch reference (dequantized
    codes, f32 matmuls) over every pair."""
    w13 = torch.empty(E, 2 * I, H, device="cuda", dtype=torch.float8_e4m3fn)
    for e in range(E):  # codes uniform in [-1, 1], as brick-bench's; one expert at a time (f32 would take 4x)
        w13[e] = (torch.rand(2 * I, H, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
    w_scale = (torch.rand(E, 2 * I // 128, H // 128, device="cuda") + 0.5) * (2 / H ** 0.5)
    a, a_scale = quantize_groups(x)
    pairs = ids.numel()
    out = torch.empty(pairs, 2 * I, device="cuda", dtype=torch.bfloat16)

    def gemm(cfg, sorted_ids, block_expert, total):
        bm, bn, g, warps, stages = cfg
        grid = (sorted_ids.numel() // bm * triton.cdiv(2 * I, bn),)
        fused_moe_fp8_kernel[grid](a, a_scale, w13, w_scale, out, sorted_ids, block_expert, total, 2 * I, H, topk,
                                   pairs, a.stride(0), a_scale.stride(0), a_scale.stride(1), w13.stride(0),
                                   w13.stride(1), w13.stride(2), w_scale.stride(0), w_scale.stride(1),
                                   w_scale.stride(2), out.stride(0), out.stride(1), BM=bm, BN=bn, G=g,
                                   num_warps=warps, num_stages=stages)

    # The reference: each expert's pairs, codes times scales in f32.
    flat = ids.flatten()
    ref = torch.zeros(pairs, 2 * I, device="cuda")
    a_deq = (a.float().view(-1, H // 128, 128) * a_scale[..., None]).view(-1, H)
    for e in torch.unique(flat).tolist():
        idx = (flat == e).nonzero().squeeze(1)
        w_deq = (w13[e].float().view(2 * I // 128, 128, H // 128, 128) * w_scale[e][:, None, :, None]).view(2 * I, H)
        ref[idx] = a_deq[idx // topk] @ w_deq.t()
    best = None
    for cfg in FP8_CONFIGS:
        try:
            sorted_ids, block_expert, total = align(ids, E, cfg[0])
            gemm(cfg, sorted_ids, block_expert, total)
            err = ((out.float() - ref).norm() / ref.norm()).item()
            t = median_ms(lambda: gemm(cfg, sorted_ids, block_expert, total))
        except Exception as ex:  # a config Triton cannot compile here
            print(f"FP8 GEMM 1 cfg {cfg} failed: {repr(ex)[:160]}")
            continue
        if best is None or t < best[0]:
            best = (t, cfg, err)
    cfg = best[1]
    sorted_ids, block_expert, total = align(ids, E, cfg[0])
    t = median_ms_after_idle(lambda: gemm(cfg, sorted_ids, block_expert, total))
    del w13, ref
    torch.cuda.empty_cache()
    return {"triton_fp8_gate_up_ms": t, "triton_fp8_gate_up_cfg": cfg, "triton_fp8_relerr": best[2]}


def route(logits, bias, topk, sigmoid):
    scores = torch.sigmoid(logits.float()) if sigmoid else torch.softmax(logits.float(), dim=-1)
    choice = scores + bias if bias is not None else scores
    ids = torch.topk(choice, topk, dim=-1).indices
    weights = scores.gather(1, ids)
    return ids.to(torch.int32), weights / weights.sum(-1, keepdim=True)


def max_blocks(pairs, experts, bm):
    return min(pairs, (pairs + min(experts, pairs) * (bm - 1)) // bm)


def align(ids, experts, bm):
    """moe_align_block_size in torch, with no host synchronization: sorted pair ids (each expert's in order, padded
    to bm with the invalid id), the expert of each block, the padded total (on the device)."""
    flat = ids.flatten()
    pairs = flat.numel()
    counts = torch.bincount(flat, minlength=experts)
    padded = (counts + bm - 1) // bm * bm
    ends = torch.cumsum(padded, 0)
    starts = ends - padded
    order = torch.argsort(flat, stable=True)
    cstarts = torch.cumsum(counts, 0) - counts
    e_sorted = flat[order]
    pos = torch.arange(pairs, device=flat.device) - cstarts[e_sorted] + starts[e_sorted]
    blocks = max_blocks(pairs, experts, bm)
    sorted_ids = torch.full((blocks * bm,), pairs, dtype=torch.int32, device=flat.device)
    sorted_ids[pos] = order.to(torch.int32)
    block_start = torch.arange(blocks, device=flat.device) * bm
    expert_of_block = torch.searchsorted(ends, block_start, right=True).clamp(max=experts - 1).to(torch.int32)
    return sorted_ids, expert_of_block, ends[-1:].to(torch.int32)


def grouped_gemm(a, w, c, weights, sorted_ids, block_expert, total, a_rows_per_pair, cfg, mul_weight):
    bm, bn, bk, g, warps, stages = cfg
    E, N, K = w.shape
    blocks = sorted_ids.numel() // bm
    grid = (blocks * triton.cdiv(N, bn),)
    fused_moe_kernel[grid](a, w, c, weights, sorted_ids, block_expert, total, N, K, a_rows_per_pair,
                           weights.numel(), a.stride(0), a.stride(1), w.stride(0), w.stride(1), w.stride(2),
                           c.stride(0), c.stride(1), BM=bm, BN=bn, BK=bk, G=g, MUL_ROUTED_WEIGHT=mul_weight,
                           num_warps=warps, num_stages=stages)


def torch_loop(x, logits, bias, w13, w2, topk, sigmoid):
    ids, weights = route(logits, bias, topk, sigmoid)
    T, H = x.shape
    I = w2.shape[2]
    out = torch.zeros(T, H, device=x.device, dtype=torch.float32)
    flat = ids.flatten()
    for e in range(w13.shape[0]):
        idx = (flat == e).nonzero().squeeze(1)
        if idx.numel():
            rows = x[idx // topk]
            gu = rows @ w13[e].t()
            y = (F.silu(gu[:, :I]) * gu[:, I:]) @ w2[e].t()
            out.index_add_(0, idx // topk, y.float() * weights.flatten()[idx, None])
    return out.to(x.dtype)


def triton_side(name, E, topk, H, I, deepseek, T, inputs=None):
    x = torch.randn(T, H, device="cuda", dtype=torch.bfloat16)
    # Brick's own router logits and bias where brick-bench wrote them (`inputs`: the same experts, the same weight
    # bytes at decode); else drawn as brick-bench draws them: logits normal with spread 2, a small (balancing)
    # bias of spread 0.001.
    stem = os.path.join(inputs, f"moe_{name}_T{T}") if inputs else None
    if stem and os.path.exists(stem + ".logits"):
        logits = torch.from_file(stem + ".logits", size=T * E, dtype=torch.float32).view(T, E).cuda()
        logits = logits.to(torch.bfloat16)  # brick-bench's values are already bf16's
        bias = torch.from_file(stem + ".bias", size=E, dtype=torch.float32).cuda() if deepseek else None
    else:
        logits = (torch.randn(T, E, device="cuda") * 2).to(torch.bfloat16)
        bias = torch.randn(E, device="cuda") * 0.001 if deepseek else None
    w13 = (torch.rand(E, 2 * I, H, device="cuda", dtype=torch.bfloat16) * 2 - 1) * (2 / H ** 0.5)
    w2 = (torch.rand(E, H, I, device="cuda", dtype=torch.bfloat16) * 2 - 1) * (2 / I ** 0.5)
    pairs = T * topk
    hbuf = torch.empty(pairs, 2 * I, device="cuda", dtype=torch.bfloat16)
    ybuf = torch.empty(pairs, H, device="cuda", dtype=torch.bfloat16)

    def layer(cfg):
        ids, weights = route(logits, bias, topk, deepseek)
        sorted_ids, block_expert, total = align(ids, E, cfg[0])
        grouped_gemm(x, w13, hbuf, weights.flatten(), sorted_ids, block_expert, total, topk, cfg, False)
        act = F.silu(hbuf[:, :I]) * hbuf[:, I:]
        grouped_gemm(act, w2, ybuf, weights.flatten(), sorted_ids, block_expert, total, 1, cfg, True)
        return ybuf.view(T, topk, H).sum(1)

    ref = torch_loop(x, logits, bias, w13, w2, topk, deepseek).float()
    ids, weights = route(logits, bias, topk, deepseek)
    result = {}
    best_layer = best_gate_up = best_gemms = None
    for cfg in CONFIGS:
        try:
            out = layer(cfg).float()
            err = ((out - ref).norm() / ref.norm()).item()
            sorted_ids, block_expert, total = align(ids, E, cfg[0])
            act = torch.empty(pairs, I, device="cuda", dtype=torch.bfloat16)
            t_gate_up = median_ms(lambda: grouped_gemm(x, w13, hbuf, weights.flatten(), sorted_ids, block_expert, total,
                                                       topk, cfg, False))
            t_down = median_ms(lambda: grouped_gemm(act, w2, ybuf, weights.flatten(), sorted_ids, block_expert, total,
                                                    1, cfg, True))
            t_layer = median_ms(lambda: layer(cfg))
        except Exception as ex:  # a config Triton cannot compile here
            print(f"{name} T={T} cfg {cfg} failed: {repr(ex)[:160]}")
            continue
        if best_layer is None or t_layer < best_layer[0]:
            best_layer = (t_layer, cfg, err)
        if best_gate_up is None or t_gate_up < best_gate_up[0]:
            best_gate_up = (t_gate_up, cfg)
        if best_gemms is None or t_gate_up + t_down < best_gemms[0]:
            best_gemms = (t_gate_up + t_down, cfg)
    distinct = int(torch.unique(ids).numel())
    # The configs are chosen by do_bench; the layer and GEMM 1 of the chosen ones are timed again as Brick's are.
    cfg = best_layer[1]
    best_layer = (median_ms_after_idle(lambda: layer(cfg)), cfg, best_layer[2])
    cfg = best_gate_up[1]
    sorted_ids, block_expert, total = align(ids, E, cfg[0])
    best_gate_up = (median_ms_after_idle(lambda: grouped_gemm(x, w13, hbuf, weights.flatten(), sorted_ids,
                                                              block_expert, total, topk, cfg, False)), cfg)
    result["triton_layer_ms"], result["triton_layer_cfg"], result["triton_relerr"] = best_layer
    result["triton_gate_up_ms"], result["triton_gate_up_cfg"] = best_gate_up
    result["triton_gemms_ms"], result["triton_gemms_cfg"] = best_gemms
    result["triton_distinct_experts"] = distinct
    result["torch_loop_ms"] = median_ms(lambda: torch_loop(x, logits, bias, w13, w2, topk, deepseek))
    del w13, w2
    torch.cuda.empty_cache()
    if H % 128 == 0 and I % 128 == 0:  # Triton's FP8 GEMM 1 beside Brick's FP8 configs
        result.update(triton_fp8_gate_up(x, ids, E, topk, H, I))
    return result


def sweep_runs(brick, key):
    """Brick's runs at shape `key` (moe_<model>_T<tokens>) in the order brick-bench made them: (config, with _run<n>
    for a config given again; its keys' prefix)."""
    runs = []
    for k in brick:
        for end in ("_gate_up_ms", "_refused"):
            if k.startswith(key + "_") and k.endswith(end):
                runs.append((k[len(key) + 1:-len(end)], k[:-len(end)]))
    return runs


def print_sweep(brick, anchors):
    """--moe CFG...: each Brick config (in the order run; a config given again is timed again) beside Triton's
    layer and GEMM 1, timed once per shape in the same run."""
    print(f"MoE sweep, bf16, {brick['device']}: Brick's configs vs Triton's fused_moe algorithm, same run")
    print(f"{'shape':18s} {'Brick config':44s} {'layer ms':>9s} {'/Triton':>8s} {'GEMM1 ms':>9s} {'/Triton':>8s}"
          f" {'TFLOP/s':>8s}")
    for key, tri in anchors.items():
        print(f"{key[4:]:18s} {'Triton':44s} {tri['triton_layer_ms']:9.3f} {'':8s} {tri['triton_gate_up_ms']:9.3f}")
        if "triton_fp8_gate_up_ms" in tri:
            print(f"{'':18s} {'Triton FP8 GEMM 1 ' + str(tri['triton_fp8_gate_up_cfg']):44s} {'':9s} {'':8s}"
                  f" {tri['triton_fp8_gate_up_ms']:9.3f}   (error {tri['triton_fp8_relerr']:.1e})")
        for config, prefix in sweep_runs(brick, key):
            if prefix + "_refused" in brick:
                print(f"{'':18s} {config:44s} refused: {brick[prefix + '_refused']}")
                continue
            layer, gate_up = brick[prefix + "_layer_ms"], brick[prefix + "_gate_up_ms"]
            # FP8 configs' GEMM 1 against Triton's FP8 GEMM 1; the others against Triton's bf16 one.
            anchor = tri.get("triton_fp8_gate_up_ms", float("nan")) if config.endswith(",fp8") else tri["triton_gate_up_ms"]
            print(f"{'':18s} {config:44s} {layer:9.3f} {tri['triton_layer_ms'] / layer:8.2f} {gate_up:9.3f}"
                  f" {anchor / gate_up:8.2f} {brick[prefix + '_gate_up_TFLOPs']:8.1f}")
    print("(/Triton: Triton's time over Brick's, > 1 is Brick faster; an FP8 config's GEMM 1 against Triton's FP8 "
          "GEMM 1, its layer against Triton's bf16 layer)")


def main(binary, configs):
    inputs = tempfile.mkdtemp(prefix="brick-moe-inputs-")
    env = dict(os.environ, BRICK_BENCH_MOE_INPUTS_DIR=inputs)
    brick = json.loads(subprocess.run([binary, "--moe"] + configs, check=True, capture_output=True, text=True,
                                      env=env).stdout)
    anchors = {}
    for (name, E, topk, H, I, deepseek) in MODELS:
        if not listed("BRICK_BENCH_MOE_MODELS", name):
            continue
        for T in TOKENS:
            if listed("BRICK_BENCH_MOE_TOKENS", T):
                anchors[f"moe_{name}_T{T}"] = triton_side(name, E, topk, H, I, deepseek, T, inputs)
    if configs:
        print_sweep(brick, anchors)
        print(json.dumps({"brick": brick, "triton": anchors}, default=str))
        shutil.rmtree(inputs, ignore_errors=True)
        return
    print(f"MoE layer, bf16, {brick['device']}; Brick (brick-bench --moe) vs Triton's fused_moe algorithm, same run")
    print(f"{'shape':22s} {'layer ms':>9s} {'Triton':>8s} {'GEMMs':>8s} {'torch':>8s} {'/Triton':>8s} |"
          f" {'GEMM1 ms':>9s} {'Triton':>8s} {'/Triton':>8s} {'TFLOP/s':>8s} {'weights GB/s':>12s} {'Triton':>7s}"
          f" {'rel.err':>8s}  Brick config")
    for key, tri in anchors.items():
        if key + "_layer_ms" not in brick:
            print(f"{key:22s} Brick refused: {brick.get(key + '_refused', '?')}")
            continue
        model = next(m for m in MODELS if key.startswith(f"moe_{m[0]}_"))
        H, I = model[3], model[4]
        b_layer, b_gate_up = brick[key + "_layer_ms"], brick[key + "_gate_up_ms"]
        triton_weights = tri["triton_distinct_experts"] * 2 * I * H * 2 / tri["triton_gate_up_ms"] / 1e6
        if brick.get(key + "_distinct_experts") is not None and brick[key + "_distinct_experts"] != tri["triton_distinct_experts"]:
            print(f"  ({key[4:]}: Brick's routing reached {brick[key + '_distinct_experts']} experts, Triton's"
                  f" {tri['triton_distinct_experts']}: different routing)")
        print(f"{key[4:]:22s} {b_layer:9.3f} {tri['triton_layer_ms']:8.3f} {tri['triton_gemms_ms']:8.3f}"
              f" {tri['torch_loop_ms']:8.3f} {tri['triton_layer_ms'] / b_layer:8.2f} | {b_gate_up:9.3f}"
              f" {tri['triton_gate_up_ms']:8.3f} {tri['triton_gate_up_ms'] / b_gate_up:8.2f}"
              f" {brick[key + '_gate_up_TFLOPs']:8.1f} {brick[key + '_gate_up_weights_GBps']:12.0f}"
              f" {triton_weights:7.0f} {brick[key + '_relerr']:8.1e}  {brick[key + '_config']}")
    print("(/Triton: Triton's time over Brick's, > 1 is Brick faster; GEMMs: Triton's two GEMMs alone, the floor of"
          " vLLM's layer; weights GB/s: the distinct experts' w13 bytes over GEMM 1's time)")
    print(f"{'Brick layer by step (ms)':28s} {'routing':>8s} {'GEMM 1':>8s} {'GEMM 2':>8s} {'sum':>8s} {'total':>8s}"
          f" {'layer':>8s}")
    for key in anchors:
        if key + "_routing_ms" in brick:
            steps = [brick[key + s] for s in ("_routing_ms", "_gate_up_ms", "_down_ms", "_sum_ms")]
            print(f"{key[4:]:28s} " + " ".join(f"{t:8.3f}" for t in steps) +
                  f" {sum(steps):8.3f} {brick[key + '_layer_ms']:8.3f}")
    print("(each step timed alone, L2 flushed: in the layer a step finds the last one's output in L2)")
    print(f"{'Brick GEMM 1 rows':28s} {'routed':>8s} {'computed':>9s} {'padding':>8s} {'TFLOP/s computed':>17s}")
    for key in anchors:
        if key + "_padded_rows" in brick:
            model = next(m for m in MODELS if key.startswith(f"moe_{m[0]}_"))
            routed, computed = int(key.rsplit("_T", 1)[1]) * model[2], brick[key + "_padded_rows"]
            print(f"{key[4:]:28s} {routed:8d} {computed:9d} {1 - routed / computed:8.1%}"
                  f" {brick[key + '_gate_up_issued_TFLOPs']:17.1f}")
    print("(computed: each expert's rows padded to BLOCK_M; TFLOP/s computed: GEMM 1's rate over them, beside a dense"
          " matmul's)")
    print(f"{'Brick layer as a CUDA graph':28s} {'plain ms':>9s} {'graph ms':>9s} {'100 back to back: us/layer':>27s}"
          f" {'graph':>7s}")
    for key in anchors:
        if key + "_layer_graph_ms" in brick:
            print(f"{key[4:]:28s} {brick.get(key + '_layer_stream_ms', float('nan')):9.3f}"
                  f" {brick[key + '_layer_graph_ms']:9.3f} {brick[key + '_back_to_back_us']:27.1f}"
                  f" {brick[key + '_back_to_back_graph_us']:7.1f}")
    print("(plain: the layer launched on the graph's stream, timed as the graph is)")
    print(json.dumps({"brick": brick, "triton": anchors}, default=str))
    shutil.rmtree(inputs, ignore_errors=True)
