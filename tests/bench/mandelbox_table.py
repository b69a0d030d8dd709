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
    print("| size | variant | frames | kernel ms (median) | kernel fps | pipeline fps | "
          f"OpenMP ms, {threads} threads (median) | OpenMP fps | OpenMP / kernel | same pixels "
          "| CPU ms per frame | OpenMP CPU ms per frame |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for case in results["cases"]:
        variant = case.get("variant", "default")
        if not case["ok"] and not case["frames"]:
            print(f"| {case['width']}x{case['height']} | {variant} | failed: {case['error']} "
                  "|||||||||")
            continue
        same = case["agreement_with_openmp"]
        cpu = case.get("cpu_ms_per_frame", -1)
        openmp_cpu = case.get("openmp_cpu_ms_per_frame", -1)
        print(f"| {case['width']}x{case['height']} | {variant} | {case['frames']} "
              f"| {case['kernel_ms']['median']:.1f} | {case['kernel_fps']:.3g} "
              f"| {case['pipeline_fps']:.3g} | {case['openmp_ms']['median']:.1f} "
              f"| {case['openmp_fps']:.3g} | {case['openmp_over_kernel']:.2f} "
              f"| {'-' if same < 0 else f'{100 * same:.2f}%'} "
              f"| {'-' if cpu < 0 else f'{cpu:.1f}'} "
              f"| {'-' if openmp_cpu < 0 else f'{openmp_cpu:.1f}'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
