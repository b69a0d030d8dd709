#!/usr/bin/env python3
# gst-opencl: OpenCV's bilateralFilter timed as the peer of openclbilateral.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# cv2.bilateralFilter(img, d=9, sigmaColor=25, sigmaSpace=2) on random RGB uint8 frames: the
# same window (radius 4) and sigmas as `openclbilateral radius=4` with its default sigmas.
# --backend cpu times cv::Mat with cv2.setNumThreads(--threads); --backend opencl times cv::UMat
# on OpenCV's default OpenCL device (OPENCV_OPENCL_DEVICE picks it, ':GPU:0' unless set), with
# cv2.ocl.finish() before and after each call so a sample is one complete filter.
# Prints one line per size and writes JSON with --json.
import argparse
import json
import os
import statistics
import sys
import time


def parse_sizes(text):
    sizes = []
    for item in text.split(","):
        if not item:
            continue
        width, height = item.split(":")[0].split("x")
        sizes.append((int(width), int(height)))
    return sizes


def quantile(sorted_values, q):
    position = q * (len(sorted_values) - 1)
    below = int(position)
    above = min(below + 1, len(sorted_values) - 1)
    return sorted_values[below] + (sorted_values[above] - sorted_values[below]) * (position - below)


def summarize(samples_ms):
    ordered = sorted(samples_ms)
    q1, q3 = quantile(ordered, 0.25), quantile(ordered, 0.75)
    return {"median": statistics.median(ordered), "min": ordered[0], "max": ordered[-1],
            "q1": q1, "q3": q3, "iqr": q3 - q1}


def time_size(cv2, np, backend, width, height, args):
    rng = np.random.default_rng(width * 7919 + height)
    image = rng.integers(0, 256, size=(height, width, 3), dtype=np.uint8)
    if backend == "opencl":
        source = cv2.UMat(image)
        output = cv2.UMat(height, width, cv2.CV_8UC3)

        def once():
            cv2.ocl.finish()
            start = time.perf_counter()
            cv2.bilateralFilter(source, args.d, args.sigma_color, args.sigma_space, dst=output)
            cv2.ocl.finish()
            return time.perf_counter() - start
    else:
        output = np.empty_like(image)

        def once():
            start = time.perf_counter()
            cv2.bilateralFilter(image, args.d, args.sigma_color, args.sigma_space, dst=output)
            return time.perf_counter() - start

    for _ in range(args.warmup):
        once()
    samples = []
    deadline = time.perf_counter() + args.max_seconds
    while len(samples) < args.runs:
        samples.append(once() * 1e3)
        if len(samples) >= args.min_runs and time.perf_counter() > deadline:
            break
    return samples


def main():
    parser = argparse.ArgumentParser(description="Time cv2.bilateralFilter as the peer of openclbilateral.")
    parser.add_argument("--sizes", default="1280x720,1920x1080,3840x2160")
    parser.add_argument("--backend", choices=("cpu", "opencl"), default="cpu")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--runs", type=int, default=50, help="samples per size (at most)")
    parser.add_argument("--min-runs", type=int, default=5,
                        help="samples per size at least, even past --max-seconds")
    parser.add_argument("--max-seconds", type=float, default=30.0,
                        help="stop sampling a size after this long once --min-runs are taken")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--d", type=int, default=9)
    parser.add_argument("--sigma-color", type=float, default=25.0)
    parser.add_argument("--sigma-space", type=float, default=2.0)
    parser.add_argument("--json")
    args = parser.parse_args()

    if args.backend == "opencl":
        os.environ.setdefault("OPENCV_OPENCL_DEVICE", ":GPU:0")
    try:
        import cv2
        import numpy as np
    except ImportError as error:
        print(f"peer skipped: {error}", file=sys.stderr)
        return 3

    result = {"peer": "cv2.bilateralFilter", "opencv": cv2.__version__, "backend": args.backend,
              "d": args.d, "sigma_color": args.sigma_color, "sigma_space": args.sigma_space,
              "channels": 3, "command": " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:])}
    if args.backend == "opencl":
        cv2.ocl.setUseOpenCL(True)
        if not cv2.ocl.haveOpenCL() or not cv2.ocl.useOpenCL():
            print("peer skipped: OpenCV has no usable OpenCL device", file=sys.stderr)
            return 3
        device = cv2.ocl.Device.getDefault()
        result["device"] = f"{device.name()} ({device.vendorName()})"
        result["opencv_opencl_device"] = os.environ.get("OPENCV_OPENCL_DEVICE", "")
    else:
        cv2.setNumThreads(args.threads)
        result["threads"] = cv2.getNumThreads()
        result["device"] = "CPU"

    cases = []
    for width, height in parse_sizes(args.sizes):
        samples = time_size(cv2, np, args.backend, width, height, args)
        stats = summarize(samples)
        cases.append({"width": width, "height": height, "runs": len(samples), "ms": stats,
                      "ms_samples": [round(s, 6) for s in samples]})
        print(f"cv2.bilateralFilter {args.backend} {width}x{height}: median {stats['median']:.3f} ms"
              f" (min {stats['min']:.3f}, IQR {stats['iqr']:.3f}, {len(samples)} runs)", flush=True)
    result["cases"] = cases
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
