#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gst-opencl: prints the Markdown table of docs/openclmandelboxsrc.md from bench_mandelbox's JSON.

usage: tests/bench/mandelbox_table.py RESULTS.json
"""
import json
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        results = json.load(f)
    threads = results.get("openmp_threads", 0)
    print("| size | frames | kernel ms (median) | kernel fps | pipeline fps | "
          f"OpenMP ms, {threads} threads (median) | OpenMP fps | OpenMP / kernel | same pixels |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for case in results["cases"]:
        if not case["ok"] and not case["frames"]:
            print(f"| {case['width']}x{case['height']} | failed: {case['error']} |||||||")
            continue
        same = case["agreement_with_openmp"]
        print(f"| {case['width']}x{case['height']} | {case['frames']} "
              f"| {case['kernel_ms']['median']:.1f} | {case['kernel_fps']:.3g} "
              f"| {case['pipeline_fps']:.3g} | {case['openmp_ms']['median']:.1f} "
              f"| {case['openmp_fps']:.3g} | {case['openmp_over_kernel']:.2f} "
              f"| {'-' if same < 0 else f'{100 * same:.2f}%'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
