#!/usr/bin/env python3
# gst-opencl: OpenCV's colour conversion and resize timed as the peers of openclconvertscale.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench_convertscale runs it with its cases; it can run alone too. For each case NAME:WxH:WxH
# (input size, output size), on random uint8 frames:
#   nv12-rgba   cv2.cvtColor(NV12, COLOR_YUV2RGBA_NV12)
#   rgba-nv12   cv2.cvtColor(RGBA, COLOR_RGBA2YUV_NV12 where OpenCV has it, else
#               COLOR_RGBA2YUV_I420: the same bytes, the chroma planar)
#   rgba-scale  cv2.resize(RGBA, out size, INTER_LINEAR)
#   nv12-scale  cv2.cvtColor(NV12, COLOR_YUV2RGBA_NV12), then cv2.resize(INTER_LINEAR)
# --backends opencl times cv2.UMat on OpenCV's OpenCL device (OPENCV_OPENCL_DEVICE, --ocl-device
# unless it is set), cv2.ocl.finish() before and after each sample; cpu times numpy arrays with
# cv2.setNumThreads(--threads). Outputs are allocated once. The result is the median of --runs
# calls after --warmup calls. --json writes every sample, --summary one line per case and
# backend: "NAME:WxH WxH BACKEND MEDIAN_MS".
import argparse
import json
import os
import statistics
import sys
import time


def quantile(ordered, q):
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def summarize(samples):
    ordered = sorted(samples)
    return {"median": statistics.median(ordered), "min": ordered[0], "max": ordered[-1],
            "q1": quantile(ordered, 0.25), "q3": quantile(ordered, 0.75)}


def parse_cases(text):
    cases = []
    for item in text.split(","):
        name, source, target = item.split(":")
        (iw, ih), (ow, oh) = (tuple(int(v) for v in s.split("x")) for s in (source, target))
        cases.append((name, iw, ih, ow, oh))
    return cases


def make_work(cv2, np, name, iw, ih, ow, oh, umat):
    """The call of one case on prepared frames, and what it calls."""
    rng = np.random.default_rng(iw * 7919 + ih)
    wrap = cv2.UMat if umat else (lambda a: a)
    nv12 = wrap(rng.integers(0, 256, size=(ih * 3 // 2, iw), dtype=np.uint8))
    rgba = wrap(rng.integers(0, 256, size=(ih, iw, 4), dtype=np.uint8))
    rgba_full = wrap(np.empty((ih, iw, 4), np.uint8))
    rgba_out = wrap(np.empty((oh, ow, 4), np.uint8))
    yuv_out = wrap(np.empty((oh * 3 // 2, ow), np.uint8))
    to_nv12 = getattr(cv2, "COLOR_RGBA2YUV_NV12", None)
    if name == "nv12-rgba":
        return (lambda: cv2.cvtColor(nv12, cv2.COLOR_YUV2RGBA_NV12, dst=rgba_out),
                "cvtColor(COLOR_YUV2RGBA_NV12)")
    if name == "rgba-nv12":
        code, label = ((to_nv12, "COLOR_RGBA2YUV_NV12") if to_nv12 is not None
                       else (cv2.COLOR_RGBA2YUV_I420, "COLOR_RGBA2YUV_I420"))
        return lambda: cv2.cvtColor(rgba, code, dst=yuv_out), f"cvtColor({label})"
    if name == "rgba-scale":
        return (lambda: cv2.resize(rgba, (ow, oh), dst=rgba_out, interpolation=cv2.INTER_LINEAR),
                "resize(INTER_LINEAR)")

    def convert_and_scale():
        cv2.cvtColor(nv12, cv2.COLOR_YUV2RGBA_NV12, dst=rgba_full)
        cv2.resize(rgba_full, (ow, oh), dst=rgba_out, interpolation=cv2.INTER_LINEAR)
    return convert_and_scale, "cvtColor(COLOR_YUV2RGBA_NV12) + resize(INTER_LINEAR)"


def time_case(cv2, work, umat, args):
    def once():
        if umat:
            cv2.ocl.finish()
        start = time.perf_counter()
        work()
        if umat:
            cv2.ocl.finish()
        return (time.perf_counter() - start) * 1e3

    for _ in range(args.warmup):
        once()
    samples = []
    deadline = time.perf_counter() + args.max_seconds
    while len(samples) < args.runs:
        samples.append(once())
        if len(samples) >= args.min_runs and time.perf_counter() > deadline:
            break
    return samples


def backend_info(cv2, backend, args):
    if backend == "cpu":
        cv2.ocl.setUseOpenCL(False)
        cv2.setNumThreads(args.threads)
        return {"device": "CPU", "threads": cv2.getNumThreads()}
    cv2.ocl.setUseOpenCL(True)
    info = {"have_opencl": bool(cv2.ocl.haveOpenCL()), "use_opencl": bool(cv2.ocl.useOpenCL()),
            "opencv_opencl_device": os.environ.get("OPENCV_OPENCL_DEVICE", "")}
    if info["use_opencl"]:
        device = cv2.ocl.Device.getDefault()
        info["device"] = f"{device.name()} ({device.vendorName()})"
    return info


def main():
    parser = argparse.ArgumentParser(description="Time OpenCV's conversions as the peers of "
                                     "openclconvertscale.")
    parser.add_argument("--cases", default="nv12-rgba:1920x1080:1920x1080")
    parser.add_argument("--backends", default="opencl,cpu")
    parser.add_argument("--ocl-device", default=":GPU:0",
                        help="OPENCV_OPENCL_DEVICE when it is not set")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--min-runs", type=int, default=5)
    parser.add_argument("--max-seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--json")
    parser.add_argument("--summary")
    args = parser.parse_args()
    os.environ.setdefault("OPENCV_OPENCL_DEVICE", args.ocl_device)
    try:
        import cv2
        import numpy as np
    except ImportError as error:
        print(f"OpenCV peer skipped: {error}", file=sys.stderr)
        return 3

    result = {"peer": "opencv", "opencv": cv2.__version__, "backends": {}, "cases": [],
              "command": " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:])}
    lines = []
    for backend in args.backends.split(","):
        info = backend_info(cv2, backend, args)
        result["backends"][backend] = info
        umat = backend == "opencl"
        if umat and not info["use_opencl"]:
            print("OpenCV peer: no usable OpenCL device, opencl skipped", file=sys.stderr)
            continue
        for name, iw, ih, ow, oh in parse_cases(args.cases):
            work, calls = make_work(cv2, np, name, iw, ih, ow, oh, umat)
            samples = time_case(cv2, work, umat, args)
            stats = summarize(samples)
            result["cases"].append({"case": name, "backend": backend, "in": f"{iw}x{ih}",
                                    "out": f"{ow}x{oh}", "calls": calls, "runs": len(samples),
                                    "ms": stats, "ms_samples": [round(s, 6) for s in samples]})
            lines.append(f"{name}:{iw}x{ih} {ow}x{oh} {backend} {stats['median']:.6g}\n")
            print(f"OpenCV {backend} {name} {iw}x{ih} -> {ow}x{oh} ({calls}): median "
                  f"{stats['median']:.3f} ms ({len(samples)} runs)", flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out, indent=2)
    if args.summary:
        with open(args.summary, "w") as out:
            out.writelines(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
