#!/usr/bin/env python3
# gst-opencl: PNG plots of time against size, per element and its peers, from benchmark results.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/plot.py [--out docs/images] [--install] RUN_DIR:TAG [RUN_DIR:TAG ...]
#   RUN_DIR  a folder written by tests/bench/run-all.sh; TAG names the machine in the file names
#            and titles (e.g. cpu-pocl, gpu-h100): docs/images/perf-<element>-<TAG>.png
#   --install  apt-get install python3-matplotlib when matplotlib is missing (Debian's
#            /usr/bin/python3; the script re-runs itself with that interpreter if it has to)
# Each plot shows, for one element on one machine, the median kernel time of the element
# against the problem size (pixels, keys) on log-log axes, beside its peers measured in the same
# run, with the interquartile range as error bars where the results have it.
import json
import os
import pathlib
import subprocess
import sys


def ensure_matplotlib(install):
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(system) and os.path.exists(system):
        check = subprocess.run([system, "-c", "import matplotlib"], capture_output=True)
        if check.returncode == 0 or install:
            if check.returncode != 0:
                install_matplotlib()
            os.execv(system, [system] + sys.argv)
    if install:
        install_matplotlib()
        os.execv(sys.executable, [sys.executable] + sys.argv)
    sys.exit("matplotlib is missing: run with --install, or apt-get install python3-matplotlib")


def install_matplotlib():
    prefix = [] if os.geteuid() == 0 else ["sudo"]
    command = prefix + ["apt-get", "install", "-y", "-q", "python3-matplotlib"]
    if subprocess.run(command).returncode != 0:
        subprocess.run(prefix + ["apt-get", "update", "-q"])
        subprocess.run(command, check=True)


def load(folder):
    results = {}
    for path in sorted(pathlib.Path(folder).glob("*.json")):
        try:
            results[path.stem] = json.loads(path.read_text())
        except ValueError:
            pass
    return results


def series_bilateral(data):
    block = data.get("openclbilateral", {})
    ours = [(c["width"] * c["height"], c["kernel_ms"]) for c in block.get("cases", [])
            if c.get("ok") and c.get("mode") == "color"]
    peer = data.get("peer") or {}
    label = f"cv2.bilateralFilter d=9 ({peer.get('backend', '?')})"
    theirs = [(c["width"] * c["height"], c["ms"]) for c in peer.get("cases", [])]
    return "openclbilateral radius 4, color", "pixels", {"openclbilateral (kernel)": ours,
                                                          label: theirs}


def series_histogram(data):
    block = data.get("openclhistogram", {})
    out = {}
    for content in ("random", "one-colour"):
        # The element's own choice ("tuned"); the forced variants are in the tables.
        out[f"openclhistogram {content} (kernel)"] = [
            (c["width"] * c["height"], c["kernel_ms"]) for c in block.get("cases", [])
            if c.get("ok") and c.get("content") == content
            and c.get("variant", "tuned") in ("tuned", None)]
    for c in (data.get("peer") or {}).get("cases", []):
        if c.get("content") != "random":
            continue
        out.setdefault(f"{c['peer']} {c['variant']} (random)", []).append(
            (c["width"] * c["height"], c["ms"]))
    return "openclhistogram, RGBA, 256 bins", "pixels", out


def series_sort(data):
    block = data.get("device_sort", {})
    rows = block.get("rows", 1)
    out = {"openclsort device sort (kernel)": [], "std::sort (1 core)": []}
    for s in block.get("sizes", []):
        if s.get("kernel_ms"):
            out["openclsort device sort (kernel)"].append((s["count"], s["kernel_ms"]))
        if s.get("std_sort_ms"):
            out["std::sort (1 core)"].append((s["count"], s["std_sort_ms"]))
        # Each sort of the device sort on its own (bench_sort measures both).
        for name, algorithm in (s.get("algorithms") or {}).items():
            out.setdefault(f"{name} (kernel)", []).append((s["count"], algorithm["kernel_ms"]))
    peer = (data.get("peer") or {}) if rows == 1 else {}
    for c in peer.get("sizes", []) or peer.get("cases", []):
        count = c.get("count") or (1 << c["log2"])
        out.setdefault("torch.sort (CUDA)", []).append((count, c.get("ms")))
    title = "openclsort, random int32" if rows == 1 else f"openclsort, {rows} rows of random int32"
    return title, "keys" if rows == 1 else "keys in all", out


def series_mandelbox(data):
    ours, omp = [], []
    for c in data.get("cases", []):
        if not c.get("ok"):
            continue
        ours.append((c["width"] * c["height"], c["kernel_ms"]))
        if c.get("openmp_ms"):
            omp.append((c["width"] * c["height"], c["openmp_ms"]))
    return ("openclmandelboxsrc, default scene", "pixels",
            {"openclmandelboxsrc (kernel)": ours,
             f"OpenMP C++ ({data.get('openmp_threads')} threads)": omp})


def series_pipelines(data):
    out = {}
    for c in data.get("cases", []):
        if c.get("ok"):
            out.setdefault(f"{c['case']} (wall per frame)", []).append(
                (c["width"] * c["height"], c["wall_ms"]))
            out.setdefault(f"{c['case']} (sum of kernels)", []).append(
                (c["width"] * c["height"], {"median": c["kernel_sum_ms"]}))
    return "pipelines into fakesink", "pixels", out


def series_convolve(data, peer=None):
    out = {"openclmulticonvolve (kernel)": []}
    for c in data.get("cases", []):
        if c.get("ok") and c.get("num_filters") and not c.get("forced_variant"):
            out["openclmulticonvolve (kernel)"].append((c["num_filters"], c["kernel_ms"]))
    for c in (peer or {}).get("cases", []):
        out.setdefault(f"torch conv3d {c['mode']} (cuDNN)", []).append(
            (c["num_filters"], {"median": c["median_ms"]}))
    return (f"openclmulticonvolve {data.get('volume')}^3, {data.get('kernel_size')}^3 filters",
            "filters (N)", out)


SERIES = {"convolve": series_convolve, "bilateral": series_bilateral, "histogram": series_histogram, "sort": series_sort,
          "sort-batch": series_sort, "mandelbox": series_mandelbox, "pipelines": series_pipelines}


def plot(plt, title, unit, series, tag, path):
    figure, axes = plt.subplots(figsize=(7, 4.5), dpi=100)
    for label, points in series.items():
        points = sorted(((x, s) for x, s in points if s and s.get("median")),
                        key=lambda point: point[0])
        if not points:
            continue
        xs = [x for x, _ in points]
        ys = [s["median"] for _, s in points]
        low = [max(0.0, s["median"] - s.get("q1", s["median"])) for _, s in points]
        high = [max(0.0, s.get("q3", s["median"]) - s["median"]) for _, s in points]
        axes.errorbar(xs, ys, yerr=[low, high], marker="o", capsize=3, label=label)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel(unit)
    axes.set_ylabel("ms (median)")
    axes.set_title(f"{title} — {tag}")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def main(argv):
    out = pathlib.Path("docs/images")
    install = False
    runs = []
    args = iter(argv)
    for arg in args:
        if arg == "--out":
            out = pathlib.Path(next(args))
        elif arg == "--install":
            install = True
        elif ":" in arg:
            folder, tag = arg.rsplit(":", 1)
            runs.append((folder, tag))
        else:
            sys.exit(f"usage: plot.py [--out DIR] [--install] RUN_DIR:TAG ...  (not {arg})")
    if not runs:
        sys.exit("usage: plot.py [--out DIR] [--install] RUN_DIR:TAG ...")
    ensure_matplotlib(install)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out.mkdir(parents=True, exist_ok=True)
    for folder, tag in runs:
        results = load(folder)
        for name, data in results.items():
            if name not in SERIES:
                continue
            if name == "convolve":
                title, unit, series = series_convolve(data, results.get("convolve-peer"))
            else:
                title, unit, series = SERIES[name](data)
            path = out / f"perf-{name}-{tag}.png"
            plot(plt, title, unit, series, tag, path)
            print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
