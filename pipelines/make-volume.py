#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes a test volume and a filter bank for openclmulticonvolve (standard library only).

The volume is W x H x D uint8, x fastest: a noisy ball (values near 160) in noisy background
(values near 40). The filters are N Gabor-like k x k x k filters (a Gaussian envelope times a
cosine along N directions), raw little-endian float32 with the filter index fastest (KXYZ), the
order the element's kernels-file expects.
"""
import argparse
import array
import math
import random
import sys


def write_volume(path, width, height, depth, seed):
    rng = random.Random(seed)
    # One noise byte per voxel, mapped through a table to each region's range.
    background = bytes(28 + (v % 25) for v in range(256))
    ball = bytes(148 + (v % 25) for v in range(256))
    cx, cy, cz = (width - 1) / 2, (height - 1) / 2, (depth - 1) / 2
    radius = 0.35 * min(width, height, depth)
    with open(path, "wb") as out:
        for z in range(depth):
            for y in range(height):
                noise = rng.randbytes(width)
                row = bytearray(noise.translate(background))
                chord2 = radius * radius - (y - cy) ** 2 - (z - cz) ** 2
                if chord2 > 0:
                    half = math.sqrt(chord2)
                    x0 = max(0, math.ceil(cx - half))
                    x1 = min(width, math.floor(cx + half) + 1)
                    if x1 > x0:
                        row[x0:x1] = noise[x0:x1].translate(ball)
                out.write(row)


def write_filters(path, count, size, sigma):
    centre = (size - 1) / 2
    taps = array.array("f", [0.0] * (count * size ** 3))
    for n in range(count):
        # Directions spread over the sphere (a Fibonacci lattice), one per filter.
        t = (n + 0.5) / count
        polar, azimuth = math.acos(1 - 2 * t), math.pi * (1 + 5 ** 0.5) * n
        direction = (math.sin(polar) * math.cos(azimuth), math.sin(polar) * math.sin(azimuth),
                     math.cos(polar))
        for l in range(size):
            for j in range(size):
                for i in range(size):
                    p = (i - centre, j - centre, l - centre)
                    envelope = math.exp(-(p[0] ** 2 + p[1] ** 2 + p[2] ** 2) / (2 * sigma ** 2))
                    phase = sum(a * b for a, b in zip(p, direction))
                    value = envelope * math.cos(math.pi * phase / max(1.0, centre))
                    taps[((l * size + j) * size + i) * count + n] = value
    if sys.byteorder != "little":
        taps.byteswap()
    with open(path, "wb") as out:
        taps.tofile(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="256", help="W, or WxHxD (default 256)")
    parser.add_argument("--output", required=True, help="the volume file")
    parser.add_argument("--filters", type=int, default=8, help="N (default 8)")
    parser.add_argument("--kernel-size", type=int, default=7, help="k (default 7)")
    parser.add_argument("--filters-output", help="the filter file (default: none written)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    dims = [int(v) for v in args.size.lower().split("x")]
    if len(dims) == 1:
        dims *= 3
    if len(dims) != 3 or min(dims) < 1:
        parser.error("--size must be W or WxHxD")
    write_volume(args.output, *dims, args.seed)
    if args.filters_output:
        write_filters(args.filters_output, args.filters, args.kernel_size,
                      sigma=max(0.5, args.kernel_size / 4))
    print("volume %dx%dx%d uint8 in %s" % (*dims, args.output))


if __name__ == "__main__":
    main()
