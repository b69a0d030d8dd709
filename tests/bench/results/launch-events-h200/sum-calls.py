#!/usr/bin/env python3
"""Sums the cl_call_times lines of call.sh's two single-stream runs into OpenCL host time per
frame, per call and in all. usage: sum-calls.py FRAMES out/calls-eos.txt out/calls-each.txt"""
import re
import sys

frames = int(sys.argv[1])
runs = {}
for path in sys.argv[2:]:
    calls = {}
    for line in open(path):
        m = re.match(r"cl_call_times: (\w+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)", line)
        if m:
            calls[m.group(1)] = (int(m.group(2)), float(m.group(3)))
    runs[path] = calls
names = sorted({n for calls in runs.values() for n in calls},
               key=lambda n: -max(c.get(n, (0, 0))[1] for c in runs.values()))
print("call".ljust(30) + "".join(f"{p.split('/')[-1]:>28}" for p in runs))
for name in names:
    cells = []
    for calls in runs.values():
        count, total_ms = calls.get(name, (0, 0.0))
        cells.append(f"{count / frames:6.2f} x = {1000 * total_ms / frames:7.2f} us")
    print(name.ljust(30) + "".join(f"{c:>28}" for c in cells))
print("all".ljust(30) + "".join(
    f"{1000 * sum(t for _, t in calls.values()) / frames:25.2f} us" for calls in runs.values()))
