#!/usr/bin/env python3
"""BRICK_PROFILE's figures beside brick-bench's own, for softmax and matmul: do they agree?

  python3 bench/profile.py path/to/brick-bench [MATMUL_CFG]     (bench/run FOLDER --profile does this)

Runs `brick-bench --softmax` and `brick-bench --matmul-sweep CFG` (4096^3 and 8192^3, f16 and bf16) with
BRICK_PROFILE=json, then matches each benchmark key to the profile's record of the same launches (softmax by the
bytes it moves, matmul by its signature and FLOPs) and prints both figures and their ratio. brick-bench times its
launches with events after an L2 flush; the profiler times the same launches with its own events.
"""
import json
import os
import re
import subprocess
import sys


def run(bench, args, env=None):
    result = subprocess.run([bench] + args, env=dict(os.environ, BRICK_PROFILE="json", **(env or {})),
                            capture_output=True, text=True, check=True)
    measured = json.loads(result.stdout)
    profile = json.loads(result.stderr[result.stderr.rindex('{"records"'):])["records"]
    return measured, profile


def main():
    bench = sys.argv[1]
    config = sys.argv[2] if len(sys.argv) > 2 else "128,256,64,8,8,3"
    rows = []
    measured, profile = run(bench, ["--softmax"])
    for key, value in measured.items():
        m = re.fullmatch(r"softmax_(fp32|bf16)_(\d+)x(\d+)_GBps", key)
        if not m:
            continue
        size = 4 if m.group(1) == "fp32" else 2
        moved = 2 * int(m.group(2)) * int(m.group(3)) * size
        found = [r for r in profile if r["kernel"] == "softmax" and r["dram_bytes"] == moved]
        if found:
            record = max(found, key=lambda r: r["launches"])
            rows.append((key, value, record["bytes_per_second"] / 1e9, "GB/s", record))
    shapes = [(4096, 4096, 4096), (8192, 8192, 8192)]
    measured, profile = run(bench, ["--matmul-sweep", config],
                            {"BRICK_BENCH_SWEEP_SHAPES": ",".join("%dx%dx%d" % s for s in shapes)})
    for key, value in measured.items():
        m = re.fullmatch(r"matmul_(fp16|bf16)_(\d+)x(\d+)x(\d+)_cfg.*_TFLOPs", key)
        if not m:
            continue
        element = "f16" if m.group(1) == "fp16" else "bf16"
        flops = 2 * int(m.group(2)) * int(m.group(3)) * int(m.group(4))
        found = [r for r in profile if r["kernel"] == "matmul" and r["signature"].startswith("(*%s," % element)
                 and r["dot_flops"]["f16/bf16"] == flops]
        if found:
            record = max(found, key=lambda r: r["launches"])
            rows.append((key, value, record["flops_per_second"] / 1e12, "TFLOP/s", record))
    worst = 0
    print("%-44s %10s %10s %7s  %s" % ("benchmark", "bench", "profile", "ratio", "profile's bound and shares"))
    for key, bench_value, profiled, unit, record in rows:
        ratio = profiled / bench_value
        worst = max(worst, abs(ratio - 1))
        print("%-44s %10.1f %10.1f %7.3f  %s: memory %.0f%%, compute %.0f%% (%s, %d launches)" % (
            key, bench_value, profiled, ratio, record["bound"], 100 * record["memory_share"],
            100 * record["compute_share"], unit, record["launches"]))
    print("largest difference: %.1f%% over %d benchmarks" % (100 * worst, len(rows)))
    if not rows:
        sys.exit("no benchmark matched a profile record")


if __name__ == "__main__":
    main()
