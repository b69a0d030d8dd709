#!/usr/bin/env python3
# gst-opencl: the peers of openclhistogram, timed on the same frames.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Frames: RGBA uint8, "random" (uniform bytes, the same generator idea as bench_histogram) or
# "one-colour" (every byte 0x96). Per size and content it times:
#   cv2 (CPU)      cv2.calcHist of red, green and blue, 256 bins each ("rgb"), and the same plus
#                  luma from cv2.cvtColor(RGBA2GRAY) ("rgb+luma": the element's four channels);
#                  cv2.setNumThreads(--threads)
#   torch (GPU)    torch.bincount of red, green, blue (one call over channel-offset values,
#                  768 bins) and luma ((299 R + 587 G + 114 B + 500) // 1000, 256 bins) on a frame
#                  already on the GPU; timed with CUDA events, only when torch with CUDA imports
# Each figure is the median over --runs calls after --warmup calls. Prints a table; --json
# writes every figure. --install installs Debian's python3-opencv with apt-get when cv2 is
# missing (never without it).
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def parse_sizes(text):
    sizes = []
    for item in text.split(","):
        if item:
            width, height = item.split(":")[0].split("x")
            sizes.append((int(width), int(height)))
    return sizes


def summarize(samples_ms):
    ordered = sorted(samples_ms)
    n = len(ordered)
    return {"median": statistics.median(ordered), "min": ordered[0], "max": ordered[-1],
            "q1": ordered[n // 4], "q3": ordered[(3 * n) // 4], "runs": n}


def make_frame(np, width, height, content):
    if content == "random":
        rng = np.random.default_rng(12345)
        return rng.integers(0, 256, size=(height, width, 4), dtype=np.uint8)
    return np.full((height, width, 4), 0x96, dtype=np.uint8)


def time_calls(function, warmup, runs):
    for _ in range(warmup):
        function()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) * 1e3)
    return summarize(samples)


def cv2_cases(cv2, np, frame, args):
    # calcHist reads one channel of the interleaved frame directly (channels=[c]): no split.
    def rgb():
        return [cv2.calcHist([frame], [c], None, [256], [0, 256]) for c in range(3)]

    def rgb_luma():
        gray = cv2.cvtColor(frame, cv2.COLOR_RGBA2GRAY)
        return rgb() + [cv2.calcHist([gray], [0], None, [256], [0, 256])]

    total = int(sum(h.sum() for h in rgb()))
    assert total == 3 * frame.shape[0] * frame.shape[1], total
    return {"rgb": time_calls(rgb, args.warmup, args.runs),
            "rgb+luma": time_calls(rgb_luma, args.warmup, args.runs)}


def torch_cases(torch, np, frame, args):
    device = torch.device("cuda")
    pixels = torch.from_numpy(frame).to(device)
    offsets = torch.tensor([0, 256, 512], device=device, dtype=torch.int64)
    weights = torch.tensor([299, 587, 114], device=device, dtype=torch.int64)

    def rgb():
        values = pixels[..., :3].to(torch.int64) + offsets
        return torch.bincount(values.reshape(-1), minlength=768)

    def rgb_luma():
        rgb_values = pixels[..., :3].to(torch.int64)
        counts = torch.bincount((rgb_values + offsets).reshape(-1), minlength=768)
        luma = ((rgb_values * weights).sum(dim=-1) + 500) // 1000
        return counts, torch.bincount(luma.reshape(-1), minlength=256)

    def timed(function):
        for _ in range(args.warmup):
            function()
        torch.cuda.synchronize()
        samples = []
        for _ in range(args.runs):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            function()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end))
        return summarize(samples)

    assert int(rgb().sum().item()) == 3 * frame.shape[0] * frame.shape[1]
    return {"rgb": timed(rgb), "rgb+luma": timed(rgb_luma)}


def import_cv2(install):
    try:
        import cv2
        return cv2, None
    except ImportError:
        pass
    if not install:
        return None, "cv2 is not importable (pass --install to apt-get install python3-opencv)"
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    for command in (["apt-get", "install", "-y", "-q", "python3-opencv"],
                    ["apt-get", "update", "-q"],
                    ["apt-get", "install", "-y", "-q", "python3-opencv"]):
        subprocess.run(sudo + command, stdout=subprocess.DEVNULL, check=False)
        try:
            import cv2
            return cv2, None
        except ImportError:
            # Debian's package lives in the system interpreter's dist-packages.
            sys.path.append("/usr/lib/python3/dist-packages")
    try:
        import cv2
        return cv2, None
    except ImportError:
        return None, "python3-opencv could not be installed"


def import_torch():
    try:
        import torch
    except ImportError:
        return None, "torch is not importable"
    if not torch.cuda.is_available():
        return None, "torch has no CUDA device"
    return torch, None


def main():
    parser = argparse.ArgumentParser(description="Time the peers of openclhistogram.")
    parser.add_argument("--sizes", default="1920x1080,3840x2160")
    parser.add_argument("--contents", default="random,one-colour")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--no-cv2", action="store_true")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--install", action="store_true",
                        help="apt-get install python3-opencv when cv2 is missing")
    parser.add_argument("--require-cv2", action="store_true",
                        help="fail (exit 1) rather than skip when cv2 cannot be imported: the "
                        "CPU comparison needs it")
    parser.add_argument("--json")
    args = parser.parse_args()

    import numpy as np
    result = {"peer": "histogram", "runs": args.runs, "warmup": args.warmup, "cases": [],
              "skipped": {}}
    cv2 = torch = None
    if not args.no_cv2:
        cv2, why = import_cv2(args.install)
        if cv2 is None:
            if args.require_cv2:
                sys.exit(f"peer_histogram.py: {why} (.ci/install-deps.sh installs python3-opencv)")
            result["skipped"]["cv2"] = why
        else:
            cv2.setNumThreads(args.threads)
            result["cv2"] = {"version": cv2.__version__, "threads": args.threads}
    if not args.no_torch:
        torch, why = import_torch()
        if torch is None:
            result["skipped"]["torch"] = why
        else:
            result["torch"] = {"version": torch.__version__,
                               "device": torch.cuda.get_device_name(0)}
    for note in result["skipped"].values():
        print("skipped:", note)

    print(f"{'size':<11} {'content':<11} {'peer':<13} {'variant':<9} {'median ms':>10}")
    for width, height in parse_sizes(args.sizes):
        for content in args.contents.split(","):
            frame = make_frame(np, width, height, content)
            peers = []
            if cv2 is not None:
                peers.append(("cv2-cpu", cv2_cases(cv2, np, frame, args)))
            if torch is not None:
                peers.append(("torch-cuda", torch_cases(torch, np, frame, args)))
            for name, variants in peers:
                for variant, stats in variants.items():
                    print(f"{width}x{height:<6} {content:<11} {name:<13} {variant:<9} "
                          f"{stats['median']:>10.3f}", flush=True)
                    result["cases"].append({"width": width, "height": height,
                                            "content": content, "peer": name,
                                            "variant": variant, "ms": stats})
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out, indent=2)
            out.write("\n")
        print("wrote", args.json)


if __name__ == "__main__":
    main()
