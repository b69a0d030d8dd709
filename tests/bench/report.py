#!/usr/bin/env python3
# gst-opencl: prints the Markdown tables of docs/performance.md from benchmark results.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/report.py [PATH ...]
#   PATH: a results file, or a folder written by tests/bench/run-all.sh (every *.json in it).
#   Default: every file in tests/bench/results.
#
# For every result it prints, beside the times: the fraction of the device's ceiling (from the
# ceilings.json of the same folder, written by bench_ceilings in the same run): bytes moved over
# the copy bandwidth for openclhistogram, useful FLOPs over the FP32 FMA rate for the bilateral
# filter and the convolutions; the peer ratio from the same run (peer time / our time: above 1
# means we are faster); and, per folder, the targets with met / missed / not measured.
# The frame-path targets (system memory in and out, GL chains, pool-fed filters) are judged where
# the folder has bench_pipeline results, against the same folder's bench_ceilings transfers.
# bench_streams results (N pipelines at once in one process) get a table per file and, on the
# GPU, the target of 90% of the decoder's frame rate alone for the histogram and the bilateral
# filter at every N up to 16, per context mode.
import json
import math
import pathlib
import re
import sys

# bench_ceilings' frame-path figures: their names in its JSON and in the report.
FRAME_PATH_FIGURES = [
    ("upload_pageable", "host to device from pageable memory (clEnqueueWriteBuffer)"),
    ("download_pageable", "device to host into pageable memory (clEnqueueReadBuffer)"),
    ("upload_pinned", "host to device from pinned memory (mapped CL_MEM_ALLOC_HOST_PTR)"),
    ("download_pinned", "device to host into pinned memory"),
    ("both_ways_pinned", "pinned, one frame up and another down at once on two queues "
     "(GB/s of one frame per wall time)"),
    ("upload_staged", "staged upload: memcpy into pinned memory, then host to device"),
    ("host_memcpy", "host memcpy"),
]

# Useful FLOPs of one bilateral tap in `color` mode: 3 differences, the squared distance (3 mul,
# 2 add), range scale plus spatial term (1 FMA = 2), the exp2 (counted as 1), the weighted sum of
# 3 channels (3 FMA = 6) and the weight sum (1).
BILATERAL_FLOP_PER_TAP = 18


def fmt_ms(value):
    if value is None:
        return "-"
    if value < 0.01:
        return f"{value:.4f}"
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def fmt_pct(value):
    return "-" if value is None else f"{100 * value:.1f}%"


def fmt_ratio(value):
    return "-" if value is None else f"{value:.2f}x"


def table_head(*columns):
    """A Markdown table's header and separator rows."""
    print("| " + " | ".join(columns) + " |")
    print("|" + " --- |" * len(columns))


def reported_failure(case, cells, width):
    """Whether a case failed; its row when it did: the leading cells, then the error, then blank
    cells up to `width` columns."""
    if case.get("ok"):
        return False
    row = [str(cell) for cell in cells] + [f"failed: {case.get('error')}"]
    print("| " + " | ".join(row) + " |" + " |" * (width - len(row)))
    return True


def named_case_table(columns, cases, cells_of):
    """A table of a row per case: its name, then `cells_of(case)` (or its failure); then a blank
    line."""
    table_head(*columns)
    for c in cases:
        if not reported_failure(c, [c.get('name')], len(columns)):
            print("| " + " | ".join([str(c.get('name'))] + cells_of(c)) + " |")
    print()


def iqr_ms(stats, default):
    """The interquartile range of a case's milliseconds (`default` for a missing quartile)."""
    return stats.get("q3", default) - stats.get("q1", default)


def median(stats):
    return stats.get("median") if isinstance(stats, dict) else None


class Run:
    """One folder (or one loose file) of results, with its ceilings."""

    def __init__(self, label):
        self.label = label
        self.files = []        # (shown path, data)
        self.ceilings = None
        self.summary = None
        self.targets = []      # (target, measured, met: True/False/None for not measured)
        self.pipeline_cases = []   # every bench_pipeline case of the folder, in file order
        self.compiler = {}     # (N, variant) -> compiler figures, from compiler-report.txt

    def copy_bandwidth(self):
        return self.ceilings["copy"]["bytes_per_s"] if self.ceilings else None

    def fma_rate(self):
        return self.ceilings["fma"]["flop_per_s"] if self.ceilings else None

    def transfer_ms(self, name):
        """Median ms of one of bench_ceilings' frame-path figures (upload_pinned, ...)."""
        figure = ((self.ceilings or {}).get("frame_path") or {}).get(name)
        return median(figure.get("ms")) if figure else None

    def pipeline_case(self, name, size):
        """The first case of that name and size that ran, or None."""
        return next((c for c in self.pipeline_cases if c.get("case") == name and c.get("ok") and
                     f"{c['width']}x{c['height']}" == size), None)

    def target(self, text, measured, met):
        self.targets.append((text, measured, met))


def machine_line(data):
    machine = data.get("machine") or {}
    if not machine:
        return ""
    text = f"machine: {machine.get('cpu', '?')}, {machine.get('cores', '?')} cores"
    if machine.get("gpus"):
        text += ", " + ", ".join(machine["gpus"])
    if machine.get("loadavg_before"):
        text += f"; load average {machine['loadavg_before']} before, " \
                f"{machine.get('loadavg_after', '?')} after"
    return text


def header(title, path, data, device=None):
    parts = [f"**{title}**"]
    if device:
        parts.append(f"on {device}")
    line = ", ".join(parts)
    machine = machine_line(data)
    print(line + (f"; {machine}" if machine else "") + ".")
    print(f"From `{path}`, made by `{data.get('command', '?')}`.\n")


def is_gpu(device_name):
    return device_name is not None and "Portable Computing Language" not in device_name and \
        "pthread" not in device_name.lower() and "cpu" not in device_name.lower()


def ceilings_table(run, path, data):
    print(f"**Ceilings** of {data.get('device_name')} (driver {data.get('driver')}, "
          f"{data.get('compute_units')} compute units), medians of {data.get('runs')} launches.")
    print(f"From `{path}`, made by `{data.get('command', '?')}`.\n")
    table_head("ceiling", "figure", "median ms per launch", "IQR ms")
    c = data["copy"]
    print(f"| global memory copy (bytes read + written) | {c['bytes_per_s'] * 1e-9:.1f} GB/s | "
          f"{fmt_ms(c['ms']['median'])} | {fmt_ms(c['ms']['iqr'])} |")
    f = data["fma"]
    print(f"| FP32 FMA rate (2 FLOP per FMA; float{f.get('vector_width')} x "
          f"{f.get('chains')} chains) | {f['flop_per_s'] * 1e-9:.1f} GFLOP/s | "
          f"{fmt_ms(f['ms']['median'])} | {fmt_ms(f['ms']['iqr'])} |")
    loc = data["local"]
    print(f"| local memory reads | {loc['bytes_per_s'] * 1e-9:.1f} GB/s | "
          f"{fmt_ms(loc['ms']['median'])} | {fmt_ms(loc['ms']['iqr'])} |")
    frame = data.get("frame_path") or {}
    for name, what in FRAME_PATH_FIGURES:
        if name in frame:
            f = frame[name]
            print(f"| {what}, one {frame['width']}x{frame['height']} RGBA frame "
                  f"({f.get('timing', 'device')} time) | {f['bytes_per_s'] * 1e-9:.1f} GB/s | "
                  f"{fmt_ms(f['ms']['median'])} | {fmt_ms(f['ms']['iqr'])} |")
    print()


def bilateral(run, path, data):
    block = data["openclbilateral"]
    cases = block["cases"]
    radius = block.get("radius") or 4
    peer = data.get("peer") or {}
    peer_cases = {(c["width"], c["height"]): c["ms"]["median"] for c in peer.get("cases", [])}
    peer_label = peer.get("peer", "peer")
    if peer.get("backend"):
        peer_label += f" ({peer['backend']}, d={peer.get('d')})"
    device = cases[0].get("device_name") if cases else None
    header(f"openclbilateral, RGBA, radius {radius}", path, data, device)
    fma = run.fma_rate()
    table_head("size", "mode", "frames", "kernel ms (median)", "kernel IQR ms", "wall ms per frame",
               "useful GFLOP/s", "of FMA ceiling", f"{peer_label} ms", "peer / kernel")
    for c in cases:
        size = f"{c['width']}x{c['height']}"
        if reported_failure(c, [size, c['mode']], 10):
            continue
        kernel = c["kernel_ms"]["median"]
        flops = c["width"] * c["height"] * (2 * radius + 1) ** 2 * BILATERAL_FLOP_PER_TAP
        rate = flops / (kernel * 1e-3)
        peer_ms = peer_cases.get((c["width"], c["height"])) if c["mode"] == "color" else None
        ratio = peer_ms / kernel if peer_ms else None
        print(f"| {size} | {c['mode']} | {c['frames']} | {fmt_ms(kernel)} | "
              f"{fmt_ms(c['kernel_ms']['iqr'])} | {fmt_ms(c['wall_ms']['median'])} | "
              f"{rate * 1e-9:.1f} | {fmt_pct(rate / fma if fma else None)} | "
              f"{fmt_ms(peer_ms)} | {fmt_ratio(ratio)} |")
        if c["mode"] != "color" or peer_ms is None:
            continue
        if is_gpu(device) and size == "3840x2160" and peer.get("backend") == "opencl":
            run.target("openclbilateral 3840x2160 color: kernel at most half of OpenCV's OpenCL "
                       "bilateralFilter", f"{fmt_ms(kernel)} ms vs {fmt_ms(peer_ms)} ms "
                       f"({kernel / peer_ms:.2f} of it)", kernel <= 0.5 * peer_ms)
        if not is_gpu(device) and size == "1280x720" and peer.get("backend") == "cpu":
            run.target("openclbilateral 1280x720 color on the CPU: faster than cv2.bilateralFilter "
                       f"with the same threads ({peer.get('threads')})",
                       f"{fmt_ms(kernel)} ms vs {fmt_ms(peer_ms)} ms ({ratio:.2f}x)",
                       kernel < peer_ms)
    print()


def histogram(run, path, data):
    block = data["openclhistogram"]
    cases = block["cases"]
    peer = data.get("peer") or {}
    peer_cases = {}
    for c in peer.get("cases", []):
        peer_cases[(c["width"], c["height"], c["content"], c["peer"], c["variant"])] = \
            c["ms"]["median"]
    columns = sorted({(p, v) for (_, _, _, p, v) in peer_cases})
    device = cases[0].get("device_name") if cases else None
    header(f"openclhistogram, {block.get('format', 'RGBA')}, {block.get('bins')} bins", path,
           data, device)
    copy = run.copy_bandwidth() or block.get("copy_bytes_per_s")
    # Results from before kernel variants had one case per size and content: the element's own
    # choice, "tuned" like the newer files' cases of that name.
    head = ("| variant | size | content | frames | kernel ms (median) | kernel IQR ms | "
            "wall ms per frame | GB/s read | of copy bandwidth |")
    rule = "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    for p, v in columns:
        head += f" {p} {v} ms | {p} {v} / kernel |"
        rule += " --- | --- |"
    print(head)
    print(rule)
    by_case = {}
    for c in cases:
        size = f"{c['width']}x{c['height']}"
        variant = c.get("variant", "tuned")
        shown = variant + (f" ({c['variant_used']})" if variant == "tuned" and
                           c.get("variant_used") else "")
        if reported_failure(c, [shown, size, c['content']], 9 + 2 * len(columns)):
            continue
        kernel = c["kernel_ms"]["median"]
        if variant == "tuned":
            by_case[(size, c["content"])] = kernel
        read = c.get("bytes_read") or c["width"] * c["height"] * 4
        read = read / (kernel * 1e-3)
        line = (f"| {shown} | {size} | {c['content']} | {c['frames']} | {fmt_ms(kernel)} | "
                f"{fmt_ms(c['kernel_ms']['iqr'])} | {fmt_ms(c['wall_ms']['median'])} | "
                f"{read * 1e-9:.1f} | {fmt_pct(read / copy if copy else None)} |")
        for p, v in columns:
            peer_ms = peer_cases.get((c["width"], c["height"], c["content"], p, v))
            line += f" {fmt_ms(peer_ms)} | {fmt_ratio(peer_ms / kernel if peer_ms else None)} |"
        print(line)
        if variant != "tuned":
            continue
        if size == "3840x2160" and c["content"] == "random" and copy:
            # Half the copy bandwidth on GPUs (issue 8), 30% on CPU devices (issue 16).
            share, words = (0.5, "half") if is_gpu(device) else (0.3, "30% of")
            run.target(f"openclhistogram 3840x2160{'' if is_gpu(device) else ' on the CPU'}: "
                       f"at least {words} the copy bandwidth in bytes read",
                       f"{read * 1e-9:.1f} GB/s = {fmt_pct(read / copy)} of "
                       f"{copy * 1e-9:.1f} GB/s", read >= share * copy)
        if not is_gpu(device) and c["content"] == "random" and size in ("1920x1080",
                                                                         "3840x2160"):
            # The element counts R, G, B and luma: the peer over the same four channels when
            # it was timed, else over R, G, B.
            for v in ("rgb+luma", "rgba", "rgb"):
                peer_ms = peer_cases.get((c["width"], c["height"], "random", "cv2-cpu", v))
                if peer_ms:
                    run.target(f"openclhistogram {size} on the CPU: faster than cv2.calcHist "
                               f"({v})", f"{fmt_ms(kernel)} ms vs {fmt_ms(peer_ms)} ms",
                               kernel < peer_ms)
                    break
    print()
    for size in sorted({s for s, _ in by_case}):
        if (size, "random") in by_case and (size, "one-colour") in by_case and \
                size == "3840x2160":
            ratio = by_case[(size, "one-colour")] / by_case[(size, "random")]
            run.target(f"openclhistogram {size}: one colour at most 2x slower than random",
                       f"{ratio:.2f}x", ratio <= 2.0)


def count_bound(run, path, data):
    # bench_count_bound: plain C++ counting of the element's four histograms on the same cores.
    header(f"Plain C++ counting of R, G, B and luma (bench_count_bound), {data.get('width')}x"
           f"{data.get('height')} RGBA, {data.get('threads')} threads", path, data)
    copy = run.copy_bandwidth() or data.get("copy_bytes_per_s") or None
    table_head("frame", "method", "ms per frame (median)", "GB/s read", "samples per ns",
               "of copy bandwidth")
    for c in data.get("cases", []):
        gbps = c["gb_per_s"]
        print(f"| {c['frame']} | {c['method']} | {fmt_ms(c['median_ms'])} | {gbps:.2f} | "
              f"{gbps:.2f} | {fmt_pct(gbps * 1e9 / copy if copy else None)} |")
    print()
    counting = [c for c in data.get("cases", []) if c["frame"] == "random" and
                c["method"] not in ("read", "stores")]
    if counting and copy:
        best = max(counting, key=lambda c: c["gb_per_s"])
        stores = next((c for c in data.get("cases", []) if c["frame"] == "random" and
                       c["method"] == "stores"), None)
        text = (f"The fastest counting method on random frames, `{best['method']}`, reads "
                f"{best['gb_per_s']:.2f} GB/s, {fmt_pct(best['gb_per_s'] * 1e9 / copy)} of the "
                f"copy bandwidth")
        if stores:
            text += (f"; one bare store per sample (`stores`) runs at {stores['gb_per_s']:.2f} "
                     f"samples per ns, {fmt_pct(stores['gb_per_s'] * 1e9 / copy)}")
        if data.get("failed"):
            text += " (failed: a method's counts differed from count-1)"
        print(text + ".\n")


def sort(run, path, data):
    block = data["device_sort"]
    rows = block.get("rows", 1)
    peer = (data.get("peer") or {}) if rows == 1 else {}
    peer_sizes = {}
    for c in (peer.get("sizes") or peer.get("cases") or []):
        key = c.get("log2") or (int(math.log2(c["count"])) if c.get("count") else None)
        peer_sizes[key] = median(c.get("ms") or c.get("kernel_ms") or {})
    device = block.get("device_name")
    what = "random int32" if rows == 1 else f"{rows} rows of random int32"
    header(f"openclsort (device sort, {block.get('strategy', '?')}), {what}", path, data,
           device)
    # Each sort of the device sort measured in the run (bench_sort --algorithms).
    names = list(block["sizes"][0].get("algorithms", {}).keys()) if block["sizes"] else []
    print("| keys per row | chosen | kernel ms (median) | " +
          "".join(f"{name} ms | " for name in names) +
          "wall ms | std::sort ms (1 core) | std::sort / kernel | torch.sort ms | "
          "torch / kernel |")
    print("| --- " * (8 + len(names)) + "|")
    largest = None
    for s in block["sizes"]:
        kernel = median(s.get("kernel_ms"))
        cpu = median(s.get("std_sort_ms"))
        torch_ms = peer_sizes.get(s["log2"])
        per_algorithm = "".join(f"{fmt_ms(median(s['algorithms'][name].get('kernel_ms')))} | "
                                for name in names)
        print(f"| 2^{s['log2']} | {s.get('automatic', '-')} | {fmt_ms(kernel)} | "
              f"{per_algorithm}{fmt_ms(median(s.get('wall_ms')))} | "
              f"{fmt_ms(cpu)} | {fmt_ratio(cpu / kernel if cpu and kernel else None)} | "
              f"{fmt_ms(torch_ms)} | "
              f"{fmt_ratio(torch_ms / kernel if torch_ms and kernel else None)} |")
        if kernel:
            largest = (s["log2"], kernel, cpu, torch_ms)
        if s["log2"] == 25 and torch_ms and kernel:
            run.target("openclsort 2^25 int32: at most 2x torch.sort",
                       f"{fmt_ms(kernel)} ms vs {fmt_ms(torch_ms)} ms ({kernel / torch_ms:.2f}x)",
                       kernel <= 2 * torch_ms)
    print()
    # One target over every measured row length from 2^12 to 2^26 with a torch.sort time: the
    # worst ratio decides.
    ratios = [(s["log2"], peer_sizes[s["log2"]] / median(s.get("kernel_ms")))
              for s in block["sizes"] if 12 <= s["log2"] <= 26 and peer_sizes.get(s["log2"])
              and median(s.get("kernel_ms"))]
    if ratios:
        worst = min(ratios, key=lambda r: r[1])
        run.target("openclsort int32, every power of two from 2^12 to 2^26: at least 1.0x "
                   "torch.sort", f"worst 2^{worst[0]}: {worst[1]:.2f}x (" +
                   ", ".join(f"2^{l} {r:.2f}x" for l, r in ratios) + ")", worst[1] >= 1.0)
    if largest and not is_gpu(device) and largest[2] and rows == 1:
        log2, kernel, cpu, _ = largest
        note = "" if log2 == 25 else f" (2^{log2}, the largest measured here; the target is 2^25)"
        run.target(f"openclsort on the CPU: no slower than std::sort on one core{note}",
                   f"{fmt_ms(kernel)} ms vs {fmt_ms(cpu)} ms", kernel <= cpu)


def mandelbox(run, path, data):
    cases = data["cases"]
    device = cases[0].get("device_name") if cases else None
    header(f"openclmandelboxsrc, default scene, {data.get('format', 'RGBA')}", path, data, device)
    table_head("size", "frames", "kernel ms (median)", "kernel fps", "pipeline fps",
               f"OpenMP ms ({data.get('openmp_threads')} threads)", "OpenMP / kernel",
               "same picture")
    for c in cases:
        size = f"{c['width']}x{c['height']}"
        if reported_failure(c, [size], 8):
            continue
        kernel = c["kernel_ms"]["median"]
        omp = median(c.get("openmp_ms"))
        agreement = c.get("agreement_with_openmp")
        print(f"| {size} | {c['frames']} | {fmt_ms(kernel)} | {1000 / kernel:.1f} | "
              f"{c.get('pipeline_fps', 0):.1f} | {fmt_ms(omp)} | "
              f"{fmt_ratio(omp / kernel if omp else None)} | "
              f"{'-' if agreement is None else fmt_pct(agreement)} |")
        if is_gpu(device) and size == "3840x2160":
            run.target("openclmandelboxsrc 3840x2160: 120 frames per second or more",
                       f"{1000 / kernel:.0f} fps (kernel)", 1000 / kernel >= 120)
        if not is_gpu(device) and size == "640x360":
            run.target("openclmandelboxsrc 640x360 on the CPU: 10 frames per second or more",
                       f"{1000 / kernel:.2f} fps", 1000 / kernel >= 10)
            if omp:
                run.target("openclmandelboxsrc 640x360 on the CPU: faster than the OpenMP "
                           "renderer on the same cores", f"{fmt_ms(kernel)} ms vs {fmt_ms(omp)} ms",
                           kernel < omp)
    print()


def pipelines(run, path, data):
    cases = data["cases"]
    device = next((c.get("device_name") for c in cases if c.get("device_name")), None)
    header("Pipelines into fakesink", path, data, device)
    table_head("pipeline", "size", "frames", "wall ms per frame", "sum of kernels ms",
               "overhead ms", "overhead / kernels", "to device MB per frame", "to host MB per frame",
               "per element: kernel ms / in-out ms")
    run.pipeline_cases.extend(cases)
    for c in cases:
        size = f"{c['width']}x{c['height']}"
        if reported_failure(c, [c['case'], size], 10):
            continue
        wall = c["wall_ms"]["median"]
        kernels = c["kernel_sum_ms"]
        per = "; ".join(f"{e['name']} {fmt_ms(e['kernel_ms']['median'])} / "
                        f"{fmt_ms(median(e.get('element_ms')))}" for e in c["elements"])
        mb = lambda v: "-" if v is None or v < 0 else f"{v * 1e-6:.2f}"  # noqa: E731
        print(f"| {c['case']} | {size} | {c['frames']} | {fmt_ms(wall)} | {fmt_ms(kernels)} | "
              f"{fmt_ms(wall - kernels)} | {fmt_pct(c['overhead_fraction'])} | "
              f"{mb(c.get('bytes_to_device_per_frame'))} | {mb(c.get('bytes_to_host_per_frame'))} "
              f"| {per} |")
        # A case in two pipelines files of the folder is judged once, on the first.
        if run.pipeline_case(c["case"], size) is not c:
            continue
        if not is_gpu(device) and size == "1920x1080" and c["case"] == "filter-host":
            run.target("base-class overhead on the CPU at 1920x1080 (filter on system memory: "
                       "wall minus kernel) under 10% of the kernel time",
                       f"{fmt_pct(c['overhead_fraction'])}", c["overhead_fraction"] < 0.10)
        if not is_gpu(device) and size == "1920x1080" and c["case"] == "resident":
            run.target("overhead on the CPU at 1920x1080, mandelbox ! bilateral ! histogram "
                       "resident, under 10% of the kernel time",
                       f"{fmt_pct(c['overhead_fraction'])}", c["overhead_fraction"] < 0.10)
        if is_gpu(device) and size == "3840x2160" and c["case"] == "resident":
            run.target("mandelbox ! bilateral ! histogram resident at 3840x2160: wall within 20% "
                       "of the sum of the kernel times",
                       f"{fmt_ms(wall)} ms vs {fmt_ms(kernels)} ms "
                       f"({fmt_pct(c['overhead_fraction'])} over)", wall <= 1.2 * kernels)
    print()


def frame_case_target(run, text, name, size, judge, missing=None):
    """One target on the folder's bench_pipeline case `name` at `size`: not measured when that
    case did not run or when `missing` says what else is not in the folder; else `judge` (wall
    ms, kernel ms, the case) gives the measured text and met (None: not measured)."""
    c = run.pipeline_case(name, size)
    if not c:
        run.target(text, f"no {name} case at {size} that ran", None)
    elif missing:
        run.target(text, missing, None)
    else:
        run.target(text, *judge(c["wall_ms"]["median"], c["kernel_sum_ms"], c))


def at_most_transfers_and_kernel(factor, transfers):
    """Judges wall <= factor x (the transfers' ms + kernel ms)."""
    def judge(wall, kernel, _):
        bound = factor * (sum(transfers) + kernel)
        terms = " + ".join(fmt_ms(ms) for ms in transfers + [kernel])
        return f"{fmt_ms(wall)} ms vs {factor} x ({terms}) = {fmt_ms(bound)} ms", wall <= bound
    return judge


def external_memory_within_1_ms(wall, kernel, case):
    if case.get("gl_interop") != "external-memory":
        return f"the chain took gl-interop {case.get('gl_interop') or '?'}", None
    return f"{fmt_ms(wall)} ms vs {fmt_ms(kernel)} + 1.0 ms", wall <= kernel + 1.0


def frame_path_targets(run):
    """The frame path's targets, from the folder's bench_pipeline cases and the pinned transfers
    bench_ceilings measured in the same run."""
    device = next((c.get("device_name") for c in run.pipeline_cases if c.get("device_name")),
                  None) or (run.ceilings or {}).get("device_name")
    up, down = run.transfer_ms("upload_pinned"), run.transfer_ms("download_pinned")
    no_pinned = None if up is not None and down is not None else \
        "no pinned transfers from bench_ceilings in this run"
    # filter-host and histogram-host include videotestsrc drawing each frame on the CPU
    # (source-host measures that alone); the -app cases feed frames the application wrote into
    # the element's pool without drawing them: the frame path itself.
    for filter_case, histogram_case in (("filter-host", "histogram-host"),
                                        ("filter-app", "histogram-app")):
        frame_case_target(run, "openclbilateral, system memory in and out, 3840x2160 "
                          f"({filter_case}): wall per frame at most 1.5 x (pinned upload + "
                          "pinned download + kernel)", filter_case, "3840x2160",
                          at_most_transfers_and_kernel(1.5, [up, down]), no_pinned)
        if is_gpu(device):
            frame_case_target(run, "openclbilateral, system memory in and out, 1920x1080 "
                              f"({filter_case}): at least 1000 frames per second", filter_case,
                              "1920x1080", lambda wall, kernel, c: (
                                  f"{1000 / wall:.0f} fps ({fmt_ms(wall)} ms per frame)",
                                  1000 / wall >= 1000))
        frame_case_target(run, "openclhistogram, system memory, 3840x2160 "
                          f"({histogram_case}): wall per frame at most 1.2 x (pinned upload + "
                          "kernel)", histogram_case, "3840x2160",
                          at_most_transfers_and_kernel(1.2, [up]), no_pinned)
    if is_gpu(device):
        frame_case_target(run, "GL chain with external memory, 3840x2160 (gl): wall per frame at "
                          "most kernel + 1.0 ms", "gl", "3840x2160", external_memory_within_1_ms)
    else:
        frame_case_target(run, "pool-fed filter on the CPU device, 1920x1080 (filter-host: the filter's pool): wall "
                          "per frame within 3% of its kernel time", "filter-host", "1920x1080",
                          lambda wall, kernel, c: (
                              f"{fmt_ms(wall)} ms vs {fmt_ms(kernel)} ms "
                              f"({fmt_pct((wall - kernel) / kernel)} over)",
                              abs(wall - kernel) <= 0.03 * kernel))


def kernel_targets(run):
    """openclkernel's own cost: a trivial copy kernel fed by openclkernelsrc, resident in OpenCL
    memory (bench_pipeline's kernel-resident), wall within 5% of the two kernels at 1920x1080."""
    frame_case_target(run, "openclkernel, trivial copy resident in OpenCL memory, 1920x1080 "
                      "(kernel-resident): wall per frame within 5% of the kernels' time",
                      "kernel-resident", "1920x1080", lambda wall, kernel, c: (
                          f"{fmt_ms(wall)} ms vs {fmt_ms(kernel)} ms "
                          f"({fmt_pct((wall - kernel) / kernel)} over)", wall <= 1.05 * kernel))


def decode_targets(run):
    """NVIDIA's decoder into openclhistogram through CUDA memory (bench_pipeline's decode cases,
    GST_OPENCL_BENCH_CLIP): frames per second from the mean interval at the sink (a decoder
    delivers in bursts), against the decoder alone in the same run."""
    def fps(case):
        samples = case.get("wall_samples") or []
        return 1000 * len(samples) / sum(samples) if samples and sum(samples) > 0 else None
    alone = run.pipeline_case("decode", "1920x1080")
    text = ("filesrc ! h264parse ! nvh264dec ! openclhistogram ! fakesink, 1080p: at least 90% "
            "of the frame rate of nvh264dec ! fakesink alone")
    through = run.pipeline_case("decode-histogram", "1920x1080")
    if not alone or not through or not fps(alone) or not fps(through):
        run.target(text, "no decode and decode-histogram cases that ran", None)
        return
    host = run.pipeline_case("decode-histogram-host", "1920x1080")
    host_text = f"; through system memory {fps(host):.0f} fps" if host and fps(host) else ""
    run.target(text, f"{fps(through):.0f} fps vs {fps(alone):.0f} fps "
               f"({fps(through) / fps(alone):.0%}){host_text}", fps(through) >= 0.9 * fps(alone))


def streams_source(data):
    """What each stream of a bench_streams file decodes or draws, in words."""
    source = data.get("source") or {}
    if source.get("kind") == "decode":
        return (f"filesrc ! h264parse ! {source.get('decoder')} of `{source.get('clip')}` "
                f"played {source.get('loops')} times, CUDA context "
                f"{source.get('cuda_context', 'per pipeline')}")
    return (f"videotestsrc pattern={source.get('pattern')} {source.get('width')}x"
            f"{source.get('height')} {source.get('format')}, "
            f"{source.get('frames_per_pipeline')} frames per pipeline")


def streams(run, path, data):
    # bench_streams: N pipelines at once in one process, aggregate frames per second from
    # PLAYING to the last EOS, against the source (the decoder) alone at the same N.
    cases = data.get("cases", [])
    device = data.get("device_name") or next((c.get("device_name") for c in cases
                                              if c.get("device_name")), None)
    header("Streams at once: N pipelines in one process (bench_streams)", path, data, device)
    if data.get("skipped"):
        print(f"Skipped: {data['skipped']}.\n")
        return
    start = data.get("start", "sequential")
    started = ("straight to PLAYING, no preroll: setup inside the time" if start == "playing"
               else f"prerolled first, {start}")
    print(f"Each stream: {streams_source(data)}, into the case's elements and fakesink; "
          f"{data.get('runs')} runs per row; start {start} ({started}). fps: frames at the "
          "sinks over the wall time from PLAYING to the last EOS; contexts: OpenCL contexts the pipelines' elements use "
          "(checked); host ms: each frame's time in the element (sink pad to push), median; "
          "kernel ms: its kernel-time at EOS, median.\n")
    table_head("streams", "case", "mode", "fps (median)", "fps IQR", "fps per stream",
               "of the baseline", "contexts", "memory", "element host ms", "kernel ms")
    for c in cases:
        if c.get("stalled"):
            # The error holds every pipeline's state; the table gets where it stalled.
            c = dict(c, error=f"stalled: {c.get('stall_where')}" +
                     (f" (report: {pathlib.PurePath(c['stall_file']).name})"
                      if c.get("stall_file") else ""))
        if reported_failure(c, [c.get("streams"), c.get("case"), c.get("mode")], 11):
            continue
        fps = c.get("fps") or {}
        print(f"| {c['streams']} | {c['case']} | {c['mode']} | {fps.get('median', 0):.1f} | "
              f"{fps.get('iqr', 0):.1f} | {c.get('fps_per_stream', 0):.1f} | "
              f"{fmt_pct(c.get('ratio_to_baseline'))} | "
              f"{'-' if c.get('contexts') is None else c['contexts']} | "
              f"{c.get('memory') or '-'} | {fmt_ms(median(c.get('element_host_ms')))} | "
              f"{fmt_ms(median(c.get('kernel_ms')))} |")
    print()
    if data.get("stopped"):
        print(f"Stopped: {data['stopped']}.\n")
    elif data.get("complete") is False:
        print("Incomplete: the program did not finish (the rows above are those it had).\n")
    if data.get("device") != "gpu" or not is_gpu(device):
        return
    # The target: the histogram and the bilateral filter keep 90% of the decoder's frame
    # rate alone at every N up to 16, in each context mode measured.
    for element in ("openclhistogram", "openclbilateral"):
        rows = [c for c in cases if c.get("element") == element]
        for mode in sorted({c.get("mode") for c in rows}):
            of_mode = sorted((c for c in rows if c.get("mode") == mode),
                             key=lambda c: c.get("streams", 0))
            converted = any("openclconvertscale name=convert" in c.get("pipeline", "")
                            for c in of_mode)
            source = data.get("source") or {}
            text = (f"{element}{' (after openclconvertscale to RGBA)' if converted else ''} on "
                    f"N streams from {source.get('decoder')} "
                    f"({pathlib.PurePath(str(source.get('clip'))).name}), {mode} OpenCL "
                    "context: at least 90% of the decoder's frame rate alone at the same N, for "
                    "every N up to 16")
            failed = [c for c in of_mode if not c.get("ok")]
            ratios = [(c["streams"], c["ratio_to_baseline"]) for c in of_mode
                      if c.get("ok") and c.get("ratio_to_baseline") is not None]
            if failed:
                run.target(text, "; ".join(f"N = {c['streams']} failed: {c.get('error')}"
                                           for c in failed), False)
                continue
            if not ratios:
                run.target(text, "no row with a baseline at the same N", None)
                continue
            worst = min(ratios, key=lambda r: r[1])
            measured = f"worst N = {worst[0]}: {fmt_pct(worst[1])} (" + ", ".join(
                f"N = {n} {fmt_pct(r)}" for n, r in ratios) + ")"
            largest = max(n for n, _ in ratios)
            if worst[1] < 0.9:
                run.target(text, measured, False)
            elif largest < 16:
                run.target(text, measured + f"; measured up to N = {largest} only", None)
            else:
                run.target(text, measured, True)


def pipelines_launch(run, path, data):
    # tests/bench/run-pipelines.sh: frames per second of gst-launch-1.0 runs, PLAYING to EOS.
    header("Pipelines, frames per second from gst-launch-1.0 (run-pipelines.sh)", path, data)
    print(f"{data.get('frames_per_run', '?')} frames per run.\n")
    table_head("pipeline", "size", "fps (median of runs)", "ms per frame")
    for c in data.get("cases", []):
        print(f"| {c.get('pipeline')} | {c.get('size')} | {c.get('fps_median', 0):.1f} | "
              f"{fmt_ms(c.get('ms_per_frame'))} |")
    print()


def fp32_variant_ms(case, kernel_ms):
    # Median ms of the fastest FP32 (not "mma:") variant for a tuned convolution case: the
    # case's own kernel time when the chosen variant is FP32, else the best FP32 candidate the
    # tuner timed; None when none was timed.
    best = None
    for v in case.get("variants", []):
        if not str(v.get("variant", "")).startswith("mma:"):
            return kernel_ms
        for t in v.get("candidates", []):
            ms = t.get("median_ms")
            if ms is not None and not str(t.get("name", "")).startswith("mma:"):
                best = ms if best is None else min(best, ms)
    return best


def parse_compiler_report(text):
    """bench_convolve --compiler-report's output: per "== N = n, K = k, variant v" block, the
    registers, spilled bytes and shared memory ptxas reports and the theoretical occupancy."""
    figures = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"== N = (\d+), K = \d+, variant (\S+)", line)
        if m:
            current = {}
            figures[(int(m.group(1)), m.group(2))] = current
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            current["spills"] = int(m.group(1)) + int(m.group(2))
        m = re.search(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?", line)
        if m:
            current["registers"] = int(m.group(1))
            current["smem"] = int(m.group(2) or 0)
        m = re.search(r"(\d+) of (\d+) warps = (\d+)%", line)
        if m:
            current["warps"] = f"{m.group(1)} of {m.group(2)} ({m.group(3)}%)"
    return figures


def compiler_table(run, cases):
    # Every candidate the compiler report built, beside its time in the tuned case of that N.
    print("The NVIDIA compiler's report of each candidate (`bench_convolve --compiler-report`, "
          "`-cl-nv-verbose`; theoretical occupancy in warps per multiprocessor) and its median "
          "time in the tuned case above:\n")
    table_head("N", "variant", "registers", "spilled bytes", "shared memory bytes",
               "warps per multiprocessor", "median ms")
    times = {}
    for c in cases:
        for v in c.get("variants", []):
            for t in v.get("candidates", []):
                times[(c["num_filters"], t.get("name"))] = t.get("median_ms")
    for (n, variant), f in run.compiler.items():
        print(f"| {n} | `{variant}` | {f.get('registers', '-')} | {f.get('spills', '-')} | "
              f"{f.get('smem', '-')} | {f.get('warps', '-')} | "
              f"{fmt_ms(times.get((n, variant)))} |")
    print()


def convolve(run, path, data):
    # bench_convolve's JSON: volume cases (num_filters, useful_flop = 2 (S-K+1)^3 K^3 N) and
    # video cases; the torch.nn.functional.conv3d peer is its own file (peer_torch_conv3d.py)
    # in the same folder.
    cases = data.get("cases", [])
    device = next((c.get("device_name") for c in cases if c.get("device_name")), None)
    header(f"openclmulticonvolve / openclconvolve3d, S = {data.get('volume')}, "
           f"K = {data.get('kernel_size')}", path, data, device)
    peers = {}
    for _, other, kind in run.files:
        if kind == "peer-conv3d" and not other.get("error") and is_gpu(device):
            for c in other.get("cases", []):
                peers[(c["num_filters"], c["mode"])] = c["median_ms"]
    fma = run.fma_rate()
    # Cases run with one variant forced (--each-variant) are listed after the tuned ones.
    volume = [c for c in cases if c.get("num_filters") and not c.get("forced_variant")]
    forced = [c for c in cases if c.get("num_filters") and c.get("forced_variant")]
    if volume:
        table_head("case", "N", "kernel ms (median)", "kernel IQR ms", "useful TFLOP/s",
                   "of FMA ceiling", "torch FP32 ms", "FP32 / kernel", "torch TF32 ms",
                   "TF32 / kernel")
    for c in volume:
        n = c["num_filters"]
        if reported_failure(c, [c.get('name'), n], 10):
            continue
        kernel = c["kernel_ms"]["median"]
        rate = c["useful_flop"] / (kernel * 1e-3)
        fp32, tf32 = peers.get((n, "fp32")), peers.get((n, "tf32"))
        iqr = iqr_ms(c["kernel_ms"], kernel)
        print(f"| {c.get('name')} | {n} | {fmt_ms(kernel)} | {fmt_ms(iqr)} | "
              f"{rate * 1e-12:.3g} | {fmt_pct(rate / fma if fma else None)} | {fmt_ms(fp32)} | "
              f"{fmt_ratio(fp32 / kernel if fp32 else None)} | {fmt_ms(tf32)} | "
              f"{fmt_ratio(tf32 / kernel if tf32 else None)} |")
        if is_gpu(device) and fma and n in (8, 32):
            # The FMA-rate target is the FP32 variants': the fastest FP32 candidate the tuner
            # timed (the chosen variant itself when it is FP32); tensor-core variants ("mma:")
            # do not run on the FMA units.
            fp32_ms = fp32_variant_ms(c, kernel)
            if fp32_ms:
                fp32_rate = c["useful_flop"] / (fp32_ms * 1e-3)
                run.target(f"openclmulticonvolve 256^3 7^3 N = {n}, FP32 variants: at least 60% "
                           "of the FMA rate", f"{fmt_pct(fp32_rate / fma)} "
                           f"({fp32_rate * 1e-12:.2f} of {fma * 1e-12:.2f} TFLOP/s, "
                           f"{fmt_ms(fp32_ms)} ms)", fp32_rate >= 0.6 * fma)
        if is_gpu(device) and n in (8, 32) and tf32:
            need = 3.0 if n == 8 else 1.0
            run.target(f"openclmulticonvolve 256^3 7^3 N = {n}: at least {need:g}x cuDNN TF32",
                       f"{tf32 / kernel:.2f}x ({fmt_ms(kernel)} vs {fmt_ms(tf32)} ms)",
                       tf32 / kernel >= need)
        if is_gpu(device) and n == 1 and fp32:
            run.target("openclconvolve3d 256^3 7^3 N = 1: at least 4x cuDNN FP32",
                       f"{fp32 / kernel:.2f}x", fp32 / kernel >= 4)
    if volume:
        print()
    tuned = [c for c in cases if c.get("variants") and not c.get("forced_variant")]
    if tuned:
        print("Kernel variants the elements chose (`opencl-variant` messages), with each "
              "candidate's median device time in ms where timed in that run:\n")
        table_head("case", "variant", "how", "candidates (median ms)")
        for c in tuned:
            for v in c["variants"]:
                times = ", ".join(f"`{t['name']}` {fmt_ms(t['median_ms'])}"
                                  for t in v.get("candidates", [])
                                  if t.get("median_ms") is not None)
                print(f"| {c.get('name')} | `{v.get('variant')}` | {v.get('source')} | "
                      f"{times or '-'} |")
        print()
    if run.compiler:
        compiler_table(run, volume)
    def forced_cells(c):
        kernel = c["kernel_ms"]["median"]
        rate = c["useful_flop"] / (kernel * 1e-3)
        return [fmt_ms(kernel), fmt_ms(iqr_ms(c["kernel_ms"], kernel)), f"{rate * 1e-12:.3g}",
                fmt_pct(rate / fma if fma else None)]

    def video_cells(c):
        k = c["kernel_ms"]
        return [fmt_ms(k['median']), fmt_ms(iqr_ms(k, 0)), f"{c.get('fps_kernel', 0):.1f}",
                f"{c.get('fps_wall', 0):.1f}"]

    if forced:
        named_case_table(["case, variant forced", "kernel ms (median)", "kernel IQR ms",
                          "useful TFLOP/s", "of FMA ceiling"], forced, forced_cells)
    video = [c for c in cases if not c.get("num_filters")]
    if video:
        named_case_table(["case", "kernel ms (median)", "kernel IQR ms", "frames/s (kernel)",
                          "frames/s (wall)"], video, video_cells)


def peer_conv3d(run, path, data):
    # Printed beside the convolution table when both are in the folder; alone otherwise.
    if any(kind == "convolve" for _, _, kind in run.files):
        return
    print(f"**{data.get('peer')}** (cuDNN {data.get('cudnn', '?')}, torch {data.get('torch', '?')}) "
          f"on {data.get('device', '?')}, S = {data.get('volume')}, K = {data.get('kernel_size')}.")
    print(f"From `{path}`, made by `{data.get('command', '?')}`.\n")
    if data.get("error"):
        print(f"Not measured: {data['error']}.\n")
        return
    table_head("mode", "N", "median ms", "useful TFLOP/s")
    for c in data.get("cases", []):
        print(f"| {c['mode']} | {c['num_filters']} | {fmt_ms(c['median_ms'])} | "
              f"{c['tflops_useful']:.4g} |")
    print()


def convertscale(run, path, data):
    """bench_convertscale: a row per case, the peers of the same run, issue 26's targets."""
    cases = data["cases"]
    device = data.get("device_name")
    header(f"openclconvertscale, {data.get('method', 'bilinear')}, "
           f"{data.get('memory', 'opencl')} memory", path, data, device)
    copy = data.get("copy_bytes_per_s") or run.copy_bandwidth()
    threads = data.get("cpu_peer_threads")
    table_head("case", "in -> out", "frames", "kernel ms (median)", "kernel q1-q3 ms",
               "MB per frame (read + written)", "GB/s", "of copy bandwidth", "wall ms per frame",
               f"CPU peer ms ({threads} threads)", "CPU peer / kernel", "OpenCV OpenCL ms",
               "OpenCV OpenCL / kernel", "OpenCV CPU ms")
    for c in cases:
        sizes = f"{c['in_format']} {c['in_width']}x{c['in_height']} -> " \
                f"{c['out_format']} {c['out_width']}x{c['out_height']}"
        if reported_failure(c, [c["case"], sizes], 14):
            continue
        kernel = c["kernel_ms"]["median"]
        rate = c["bytes"] / (kernel * 1e-3)
        cpu = c["cpu_peer"]["ms"]["median"] if c["cpu_peer"].get("ok") else None
        ocl = c["opencv_ms"].get("opencl")
        print(f"| {c['case']} | {sizes} | {c['frames']} | {fmt_ms(kernel)} | "
              f"{fmt_ms(c['kernel_ms']['q1'])}-{fmt_ms(c['kernel_ms']['q3'])} | "
              f"{c['bytes'] * 1e-6:.2f} | {rate * 1e-9:.2f} | "
              f"{fmt_pct(rate / copy if copy else None)} | {fmt_ms(c['wall_ms']['median'])} | "
              f"{fmt_ms(cpu)} | {fmt_ratio(cpu / kernel if cpu else None)} | {fmt_ms(ocl)} | "
              f"{fmt_ratio(ocl / kernel if ocl else None)} | "
              f"{fmt_ms(c['opencv_ms'].get('cpu'))} |")
        convertscale_targets(run, device, c, kernel, rate, copy, cpu, ocl)
    print()


def convertscale_targets(run, device, c, kernel, rate, copy, cpu, ocl):
    """Issue 26's kernel targets of one case."""
    size = f"{c['in_width']}x{c['in_height']}"
    if is_gpu(device):
        share = {("nv12-rgba", "3840x2160"): 0.7, ("rgba-scale", "3840x2160"): 0.6}.get(
            (c["case"], size))
        if share and copy:
            run.target(f"openclconvertscale {c['case']} {size}: at least {share:.0%} of the copy "
                       "bandwidth (bytes read + written)", f"{fmt_pct(rate / copy)} of "
                       f"{copy * 1e-9:.0f} GB/s", rate >= share * copy)
        if ocl and (c["case"], size) in (("nv12-rgba", "3840x2160"), ("rgba-scale", "3840x2160")):
            run.target(f"openclconvertscale {c['case']} {size}: at least 1.5x OpenCV's OpenCL path",
                       f"{fmt_ms(kernel)} ms vs {fmt_ms(ocl)} ms ({ocl / kernel:.2f}x)",
                       ocl >= 1.5 * kernel)
    elif c["case"] == "nv12-rgba" and size == "1920x1080" and cpu:
        run.target("openclconvertscale NV12 -> RGBA 1920x1080 on the CPU: faster than "
                   "videoconvert with as many threads as cores", f"{fmt_ms(kernel)} ms vs "
                   f"{fmt_ms(cpu)} ms", kernel < cpu)


def classify(data):
    if not isinstance(data, dict):
        return None
    kind = data.get("benchmark")
    if kind == "ceilings":
        return "ceilings"
    if kind == "summary":
        return "summary"
    if kind == "pipelines":
        cases = data.get("cases") or [{}]
        return "pipelines" if "case" in cases[0] else "pipelines-launch"
    if kind == "openclmandelboxsrc":
        return "mandelbox"
    if "openclbilateral" in data:
        return "bilateral"
    if "openclhistogram" in data:
        return "histogram"
    if "device_sort" in data:
        return "sort"
    if kind == "openclbilateral":
        return "bilateral-bare"
    if kind == "openclhistogram":
        return "histogram-bare"
    if kind == "convolve":
        return "convolve"
    if kind == "peer_torch_conv3d":
        return "peer-conv3d"
    if kind == "count_bound":
        return "count-bound"
    if kind == "streams":
        return "streams"
    if kind == "openclconvertscale":
        return "convertscale"
    return None


REPORTERS = {"bilateral": bilateral, "histogram": histogram, "sort": sort,
             "mandelbox": mandelbox, "pipelines": pipelines, "pipelines-launch": pipelines_launch,
             "streams": streams, "convolve": convolve, "peer-conv3d": peer_conv3d, "count-bound": count_bound,
             "convertscale": convertscale}
ORDER = ["bilateral", "histogram", "count-bound", "convertscale", "convolve", "peer-conv3d", "sort", "mandelbox", "pipelines",
         "pipelines-launch", "streams"]


def load_runs(argv, root):
    """Folders become one run each; loose files share one run per parent folder."""
    targets = [pathlib.Path(p) for p in argv] or [root / "results"]
    runs = []
    for target in targets:
        if target.is_dir():
            paths = sorted(target.glob("*.json"))
            label = str(target)
        else:
            paths = [target]
            label = str(target)
        run = Run(label)
        report = target / "compiler-report.txt"
        if target.is_dir() and report.exists():
            run.compiler = parse_compiler_report(report.read_text())
        for path in paths:
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError) as error:
                print(f"<!-- {path}: {error} -->", file=sys.stderr)
                continue
            shown = path.resolve()
            try:
                shown = shown.relative_to(root.parent.parent)
            except ValueError:
                pass
            kind = classify(data)
            if kind == "ceilings":
                run.ceilings = data
            elif kind == "summary":
                run.summary = data
            if kind in ("bilateral-bare", "histogram-bare"):
                name = "openclbilateral" if kind == "bilateral-bare" else "openclhistogram"
                data = {name: data, "command": data.get("command")}
                kind = kind.split("-")[0]
            run.files.append((shown, data, kind))
        runs.append(run)
    return runs


def print_run(run):
    machine = (run.summary or {}).get("machine")
    if run.summary:
        print(f"### Run `{run.summary.get('command')}`\n")
        if machine:
            print(f"{machine_line({'machine': machine})}.\n")
        table_head("benchmark", "exit status", "seconds")
        for name, b in run.summary.get("benchmarks", {}).items():
            print(f"| {name} | {b['exit']} | {b['seconds']} |")
        print()
    for shown, data, kind in run.files:
        if kind == "ceilings":
            ceilings_table(run, shown, data)
    for kind_wanted in ORDER:
        for shown, data, kind in run.files:
            if kind == kind_wanted:
                REPORTERS[kind] (run, shown, data)
    if any(kind == "pipelines" for _, _, kind in run.files):
        frame_path_targets(run)
        if is_gpu(next((c.get("device_name") for c in run.pipeline_cases
                        if c.get("device_name")), None)):
            kernel_targets(run)
            decode_targets(run)
    if run.targets:
        print("**Targets** (issues 8 and 26), ratios from this run:\n")
        table_head("target", "measured", "met")
        for text, measured, met in run.targets:
            verdict = "not measured" if met is None else "met" if met else "missed"
            print(f"| {text} | {measured} | {verdict} |")
        print()
    elif run.ceilings is None and run.summary is None:
        pass


def main(argv):
    root = pathlib.Path(__file__).resolve().parent
    for run in load_runs(argv[1:], root):
        print_run(run)


if __name__ == "__main__":
    main(sys.argv)
