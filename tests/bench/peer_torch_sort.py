#!/usr/bin/env python3
# gst-opencl: torch.sort on CUDA (CUB's radix sort) timed as the peer of the device sort.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# For each size 2^n: random int32 keys on the GPU (fixed seed), --warmup calls, then --runs calls
# of torch.sort(keys) each bracketed by CUDA events recorded on the current stream: the figure is
# device time for one complete sort (values and indices, as torch.sort returns both), the
# closest analogue of bench_sort's kernel time. The first result is checked to be ascending.
# Prints one line per size and writes JSON with --json.
import argparse
import json
import statistics
import sys


def main():
    parser = argparse.ArgumentParser(
        description="Time torch.sort on CUDA as the peer of bench_sort.")
    parser.add_argument("--sizes", default="20,21,22,23,24,25",
                        help="log2 of the key counts, comma separated (default 20..25)")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()

    try:
        import torch
    except ImportError:
        sys.exit("torch is not importable")
    if not torch.cuda.is_available():
        sys.exit("torch has no CUDA device")
    device = torch.device("cuda")
    name = torch.cuda.get_device_name(device)
    generator = torch.Generator(device=device)
    results = []
    print(f"torch {torch.__version__} on {name}")
    print(f"{'log2':<6} {'N':>10} {'torch.sort ms (median)':>24} {'min':>9} {'max':>9}")
    for log2 in (int(text) for text in args.sizes.split(",") if text):
        count = 1 << log2
        generator.manual_seed(20110601 + log2)
        keys = torch.randint(-2**31, 2**31 - 1, (count,), dtype=torch.int32, device=device,
                             generator=generator)
        values, _ = torch.sort(keys)
        correct = bool((values[1:] >= values[:-1]).all().item())
        for _ in range(args.warmup):
            torch.sort(keys)
        samples = []
        for _ in range(args.runs):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            torch.sort(keys)
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end))
        median = statistics.median(samples)
        results.append({"log2": log2, "count": count, "correct": correct,
                        "ms": {"median": median, "min": min(samples), "max": max(samples),
                               "samples": samples}})
        print(f"{log2:<6} {count:>10} {median:>24.3f} {min(samples):>9.3f} {max(samples):>9.3f}"
              f"{'' if correct else '  WRONG RESULT'}")
        del keys, values
        torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"peer": "torch.sort (CUB radix sort)", "torch": torch.__version__,
                       "device": name, "runs": args.runs, "warmup": args.warmup,
                       "sizes": results}, f, indent=2)
            f.write("\n")
    return 0 if all(r["correct"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
