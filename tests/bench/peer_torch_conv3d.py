#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Peer of bench_convolve: torch.nn.functional.conv3d (cuDNN) on the blog's volume case.

A S^3 volume (uint8 values, as float32) against N filters of K^3 taps, valid padding (the
(S-K+1)^3 fully covered outputs, the work bench_convolve counts as useful), in FP32 (TF32 off)
and in TF32. cudnn.benchmark is on, so cuDNN picks its fastest algorithm during the warm-up
calls, as the element picks its variant on first use. Each call is timed with CUDA events;
the median is reported, with TFLOP/s = 2 x (S-K+1)^3 x K^3 x N / median.
"""
import argparse
import json
import platform
import statistics
import sys


def measure(torch, volume, filters, reps, warmup):
    conv3d = torch.nn.functional.conv3d
    for _ in range(warmup):
        conv3d(volume, filters)
    torch.cuda.synchronize()
    times_ms = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        conv3d(volume, filters)
        end.record()
        torch.cuda.synchronize()
        times_ms.append(start.elapsed_time(end))
    return times_ms


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--volume", type=int, default=256, help="S (default 256)")
    parser.add_argument("--kernel-size", type=int, default=7, help="K (default 7)")
    parser.add_argument("--filters", default="1,8,32", help="N values (default 1,8,32)")
    parser.add_argument("--modes", default="fp32,tf32", help="fp32, tf32 (default both)")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()

    result = {"benchmark": "peer_torch_conv3d", "peer": "torch.nn.functional.conv3d",
              "command": " ".join(sys.argv),
              "volume": args.volume, "kernel_size": args.kernel_size,
              "useful_flop_definition": "2 x (S - K + 1)^3 x K^3 x N", "cases": []}
    try:
        import torch
    except ImportError as error:
        result["error"] = "no torch: %s" % error
        torch = None
    if torch is not None and not torch.cuda.is_available():
        result["error"] = "torch has no CUDA device"
        torch = None
    if torch is not None:
        result.update(torch=torch.__version__, cudnn=torch.backends.cudnn.version(),
                      device=torch.cuda.get_device_name(0), python=platform.python_version())
        torch.backends.cudnn.benchmark = True
        s, k = args.volume, args.kernel_size
        generator = torch.Generator(device="cuda").manual_seed(1)
        volume = torch.randint(0, 256, (1, 1, s, s, s), device="cuda", dtype=torch.uint8,
                               generator=generator).float()
        valid = s - k + 1
        for mode in args.modes.split(","):
            tf32 = mode == "tf32"
            torch.backends.cudnn.allow_tf32 = tf32
            torch.backends.cuda.matmul.allow_tf32 = tf32
            for n in (int(v) for v in args.filters.split(",")):
                filters = torch.rand((n, 1, k, k, k), device="cuda", generator=generator) * 2 - 1
                times_ms = measure(torch, volume, filters, args.reps, args.warmup)
                median = statistics.median(times_ms)
                flop = 2.0 * valid ** 3 * k ** 3 * n
                case = {"mode": mode, "num_filters": n, "median_ms": median,
                        "min_ms": min(times_ms), "max_ms": max(times_ms),
                        "tflops_useful": flop / (median * 1e-3) * 1e-12,
                        "samples_ms": times_ms}
                result["cases"].append(case)
                print("conv3d %s %d^3 x %d filters of %d^3: median %.3f ms, %.2f TFLOP/s"
                      % (mode, s, n, k, median, case["tflops_useful"]), flush=True)
                del filters
    if "error" in result:
        print("peer skipped: %s" % result["error"], file=sys.stderr)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out, indent=2)
    return 1 if "error" in result else 0


if __name__ == "__main__":
    sys.exit(main())
