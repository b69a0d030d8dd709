#!/usr/bin/env python3
"""gst-opencl: the same bench_pipeline cases run in alternating rounds with two plugin builds,
summed up: for each case and size, the median over the rounds of each round's median wall ms per
frame, old and new, their ratio, and every round's figure.

usage: tests/bench/rounds.py FOLDER
  FOLDER holds <old|new>-<round>.json or fp-<old|new>-<round>.json (bench_pipeline --json), as
  the filter-pool rerun in tests/bench/results/filter-pool-gpu/ was written.
SPDX-License-Identifier: LGPL-2.1-or-later"""
import glob
import json
import os
import re
import statistics
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    figures = {}  # (case, WxH) -> {"old": [..], "new": [..]}
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
        match = re.search(r"(old|new)-(\d+)\.json$", path)
        if not match:
            continue
        with open(path) as f:
            data = json.load(f)
        for case in data.get("cases", []):
            if not case.get("ok", True) or not case.get("wall_ms"):
                continue
            key = (case["case"], "%dx%d" % (case["width"], case["height"]))
            figures.setdefault(key, {"old": [], "new": []})[match.group(1)].append(
                (int(match.group(2)), case["wall_ms"]["median"]))
    print("| case | size | old ms (median of rounds) | new ms | new/old | old rounds | new rounds |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for (case, size), runs in sorted(figures.items()):
        old = [v for _, v in sorted(runs["old"])]
        new = [v for _, v in sorted(runs["new"])]
        if not old or not new:
            continue
        a, b = statistics.median(old), statistics.median(new)
        print("| %s | %s | %.3f | %.3f | %.3f | %s | %s |" % (
            case, size, a, b, b / a, ", ".join("%.2f" % v for v in old),
            ", ".join("%.2f" % v for v in new)))


if __name__ == "__main__":
    main()
