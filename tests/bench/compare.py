#!/usr/bin/env python3
# gst-opencl: compares two benchmark run folders of the same machine kind.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/compare.py OLD_DIR NEW_DIR [--noise F]
#   OLD_DIR, NEW_DIR: folders written by tests/bench/run-all.sh (every *.json in each).
#   --noise F: the smallest relative change taken as real (default 0.05, i.e. 5%).
#
# Answers "is any element slower than before beyond noise?". For every measurement present in
# both folders (matched by its identifying keys: element, size, mode, variant, content, keys per
# row, N, case, ...) it prints the median before and after, the ratio new/old and a verdict:
#   noise  = max(F, relative IQR of OLD, relative IQR of NEW)  (IQR / median, where the file
#            has quartiles or samples; a run without them adds nothing)
#   slower: new > old x (1 + noise)   faster: old > new x (1 + noise)   else same
# (for frames per second, higher is better: the same test on the times 1 / fps).
# Measured: the kernel-time medians of every element benchmark (bilateral, histogram, sort,
# sort-batch, mandelbox, convolve), the wall ms per frame of bench_pipeline's cases, the
# frames per second of run-pipelines.sh and the aggregate frames per second of bench_streams
# (per case, context mode and number of streams). The peers (OpenCV, torch, std::sort, the OpenMP
# renderer) and bench_ceilings are not our code: they go into a separate table, a check that
# the machine was the same (a peer much slower in NEW means the machine differed).
# Files are paired by name (bilateral.json with bilateral.json), else by kind when each folder
# has one file of that kind left. It reports, it does not gate: the exit status is 0 whatever
# it finds, 2 for a usage error.
import argparse
import pathlib
import statistics
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import report  # noqa: E402  (classify, load_runs, median, fmt_ms)

DEFAULT_NOISE = 0.05
# Tables in this order; "sort-batch" is report.py's "sort" kind with more than one row.
ORDER = ["bilateral", "histogram", "convolve", "sort", "sort-batch", "mandelbox", "pipelines",
         "pipelines-launch", "streams"]


class Measure:
    """One figure of one file: `key` identifies it across runs, `label` shows it."""

    def __init__(self, table, key, label, value, spread=None, unit="ms", higher_better=False,
                 note="", error=None, machine=False):
        self.table, self.key, self.label = table, key, label
        self.value = value if isinstance(value, (int, float)) and value > 0 else None
        self.spread = spread            # relative IQR (IQR / median), or None
        self.unit, self.higher_better = unit, higher_better
        self.note = note or ""
        self.error = error              # the case failed: its error
        self.machine = machine          # a peer or a ceiling: a check of the machine


def relative_iqr(stats, samples=None):
    """IQR / median from a statistics object: its iqr, else q3 - q1, else its samples (or the
    samples given beside it)."""
    if not isinstance(stats, dict):
        stats = {}
    mid = stats.get("median")
    samples = stats.get("samples") or samples
    if not mid and samples:
        mid = statistics.median(samples)
    if not mid or mid <= 0:
        return None
    if isinstance(stats.get("iqr"), (int, float)):
        return stats["iqr"] / mid
    if isinstance(stats.get("q1"), (int, float)) and isinstance(stats.get("q3"), (int, float)):
        return (stats["q3"] - stats["q1"]) / mid
    if samples and len(samples) >= 2:
        # Quartiles by linear interpolation between the closest ranks, as benchlib does.
        q1, _, q3 = statistics.quantiles(samples, n=4, method="inclusive")
        return (q3 - q1) / mid
    return None


def stats_measure(table, key, label, stats, samples=None, **kw):
    return Measure(table, key, label, report.median(stats), relative_iqr(stats, samples), **kw)


def failed(case):
    return case.get("ok") is False


def size_of(c):
    return f"{c['width']}x{c['height']}"


# Extractors: (data of one file) -> [Measure]. The key holds what tells the cases apart and the
# settings that change their cost (radius, format, bins, rows), so that different settings do
# not match.

def bilateral(data):
    block = data["openclbilateral"]
    cfg = (block.get("format", "RGBA"), block.get("radius") or 4)
    out = []
    for c in block.get("cases", []):
        label = f"{size_of(c)} {c['mode']}"
        key = ("bilateral",) + cfg + (size_of(c), c["mode"])
        if failed(c):
            out.append(Measure("bilateral", key, label, None, error=c.get("error")))
            continue
        out.append(stats_measure("bilateral", key, label, c.get("kernel_ms"),
                                 c.get("kernel_ms_samples")))
    peer = data.get("peer") or {}
    name = f"{peer.get('peer', 'peer')} ({peer.get('backend', '?')})"
    for c in peer.get("cases", []):
        out.append(stats_measure("bilateral", ("peer-bilateral", name, size_of(c)),
                                 f"{name} {size_of(c)}", c.get("ms"), c.get("ms_samples"),
                                 machine=True))
    return out


def histogram(data):
    block = data["openclhistogram"]
    cfg = (block.get("format", "RGBA"), block.get("bins"))
    out = []
    for c in block.get("cases", []):
        variant = c.get("variant", "tuned")
        label = f"{variant} {size_of(c)} {c['content']}"
        key = ("histogram",) + cfg + (variant, size_of(c), c["content"])
        if failed(c):
            out.append(Measure("histogram", key, label, None, error=c.get("error")))
            continue
        note = f"chose {c['variant_used']}" if c.get("variant_used") else ""
        out.append(stats_measure("histogram", key, label, c.get("kernel_ms"),
                                 c.get("kernel_ms_samples"), note=note))
    for c in (data.get("peer") or {}).get("cases", []):
        name = f"{c['peer']} {c['variant']}"
        out.append(stats_measure("histogram", ("peer-histogram", name, size_of(c), c["content"]),
                                 f"{name} {size_of(c)} {c['content']}", c.get("ms"),
                                 machine=True))
    return out


def sort(data):
    block = data["device_sort"]
    rows = block.get("rows", 1)
    table = "sort" if rows == 1 else "sort-batch"
    per_row = "" if rows == 1 else f" x {rows} rows"
    out = []
    for s in block.get("sizes", []):
        label = f"2^{s['log2']}{per_row}"
        key = (table, rows, s["log2"])
        if s.get("correct") is False:
            out.append(Measure(table, key + ("element",), label, None, error="wrong order"))
            continue
        note = f"chose {s['automatic']}" if s.get("automatic") else ""
        out.append(stats_measure(table, key + ("element",), f"{label} (element)",
                                 s.get("kernel_ms"), note=note))
        for name, a in (s.get("algorithms") or {}).items():
            out.append(stats_measure(table, key + (name,), f"{label} {name} only",
                                     a.get("kernel_ms")))
        out.append(stats_measure(table, ("std-sort", rows, s["log2"]),
                                 f"std::sort 1 core, 2^{s['log2']}{per_row}", s.get("std_sort_ms"),
                                 machine=True))
    peer = (data.get("peer") or {}) if rows == 1 else {}
    for p in peer.get("sizes") or peer.get("cases") or []:
        if p.get("log2") is not None:
            out.append(stats_measure(table, ("peer-sort", peer.get("peer"), p["log2"]),
                                     f"{peer.get('peer', 'peer')} 2^{p['log2']}",
                                     p.get("ms") or p.get("kernel_ms"), machine=True))
    return out


def mandelbox(data):
    fmt = data.get("format", "RGBA")
    out = []
    for c in data.get("cases", []):
        key = ("mandelbox", fmt, size_of(c))
        if failed(c):
            out.append(Measure("mandelbox", key, size_of(c), None, error=c.get("error")))
            continue
        out.append(stats_measure("mandelbox", key, size_of(c), c.get("kernel_ms"),
                                 c.get("kernel_ms_samples")))
        if c.get("openmp_ms"):
            out.append(stats_measure("mandelbox", ("openmp", fmt, size_of(c)),
                                     f"OpenMP renderer ({data.get('openmp_threads')} threads) "
                                     f"{size_of(c)}", c["openmp_ms"], c.get("openmp_ms_samples"),
                                     machine=True))
    return out


def pipelines(data):
    out = []
    for c in data.get("cases", []):
        key = ("pipelines", c["case"], size_of(c))
        label = f"{c['case']} {size_of(c)} (wall per frame)"
        if failed(c):
            out.append(Measure("pipelines", key, label, None, error=c.get("error")))
            continue
        note = f"gl-interop {c['gl_interop']}" if c.get("gl_interop") not in (None, "none") else ""
        out.append(stats_measure("pipelines", key, label, c.get("wall_ms"),
                                 c.get("wall_samples"), note=note))
    return out


def pipelines_launch(data):
    out = []
    for c in data.get("cases", []):
        runs = [r for r in c.get("fps_runs") or [] if r]
        key = ("pipelines-launch", c.get("pipeline"), c.get("size"))
        out.append(Measure("pipelines-launch", key, f"{c.get('pipeline')} {c.get('size')}",
                           c.get("fps_median"),
                           relative_iqr({}, runs), unit="fps", higher_better=True))
    return out


def streams(data):
    # The source's settings change every row's cost: they are part of the key.
    source = data.get("source") or {}
    setting = tuple(source.get(k) for k in ("kind", "decoder", "clip", "loops", "pattern",
                                            "format", "width", "height", "frames_per_pipeline"))
    # Start playing puts the setup inside the time; sequential and together both preroll first
    # (results from before --start are sequential) and pair with each other.
    setting += ("playing" if data.get("start") == "playing" else "prerolled",)
    out = []
    for c in data.get("cases", []):
        key = ("streams", c.get("case"), c.get("element"), c.get("mode"), c.get("streams")) + \
            setting
        label = f"{c.get('case')} {c.get('mode')} N = {c.get('streams')}"
        if failed(c):
            out.append(Measure("streams", key, label, None, error=c.get("error"), unit="fps",
                               higher_better=True))
            continue
        ratio = c.get("ratio_to_baseline")
        out.append(Measure("streams", key, label, report.median(c.get("fps")),
                           relative_iqr(c.get("fps"), c.get("fps_samples")), unit="fps",
                           higher_better=True,
                           note="" if ratio is None else f"{100 * ratio:.0f}% of the baseline"))
    return out


def convolve(data):
    out = []
    for c in data.get("cases", []):
        forced = c.get("forced_variant")
        label = c.get("name", "?") + (f", forced {forced}" if forced else "")
        key = ("convolve", c.get("name"), forced)
        if failed(c):
            out.append(Measure("convolve", key, label, None, error=c.get("error")))
            continue
        chosen = ", ".join(v.get("variant", "?") for v in c.get("variants") or [])
        out.append(stats_measure("convolve", key, label, c.get("kernel_ms"),
                                 c.get("kernel_ms_samples"),
                                 note=f"chose {chosen}" if chosen else ""))
    return out


def peer_conv3d(data):
    if data.get("error"):
        return []
    name = data.get("peer", "conv3d")
    return [stats_measure("convolve", ("peer-conv3d", c["mode"], c["num_filters"]),
                          f"{name} {c['mode']} N = {c['num_filters']}", {"median": c["median_ms"]},
                          c.get("samples_ms"), machine=True)
            for c in data.get("cases", [])]


def ceilings(data):
    out = []
    for name in ("copy", "fma", "local"):
        if isinstance(data.get(name), dict):
            out.append(stats_measure("ceilings", ("ceiling", name),
                                     f"ceiling {name} (ms per launch)", data[name].get("ms"),
                                     machine=True))
    frame = data.get("frame_path") or {}
    for name, _ in report.FRAME_PATH_FIGURES:
        if isinstance(frame.get(name), dict):
            size = f"{frame.get('width')}x{frame.get('height')}"
            out.append(stats_measure("ceilings", ("ceiling", name, size),
                                     f"ceiling {name} {size}", frame[name].get("ms"),
                                     machine=True))
    return out


EXTRACT = {"bilateral": bilateral, "histogram": histogram, "sort": sort, "mandelbox": mandelbox,
           "pipelines": pipelines, "pipelines-launch": pipelines_launch, "convolve": convolve,
           "streams": streams,
           "peer-conv3d": peer_conv3d, "ceilings": ceilings}


def load(folder):
    """[(file name, kind, data)] of one run folder, through report.py's loading."""
    run = report.load_runs([folder], HERE)[0]
    files = [(pathlib.PurePath(str(shown)).name, kind, data) for shown, data, kind in run.files
             if kind in EXTRACT]
    return files, run


def pair_files(old, new):
    """Pairs by file name and kind; what is left pairs by kind when one file of it is left on
    each side. Returns (pairs, only in OLD, only in NEW)."""
    pairs, new_left = [], list(new)
    old_left = []
    for name, kind, data in old:
        match = next((f for f in new_left if f[0] == name and f[1] == kind), None)
        if match:
            pairs.append(((name, kind, data), match))
            new_left.remove(match)
        else:
            old_left.append((name, kind, data))
    for o in list(old_left):
        same_old = [f for f in old_left if f[1] == o[1]]
        same_new = [f for f in new_left if f[1] == o[1]]
        if len(same_old) == 1 and len(same_new) == 1:
            pairs.append((o, same_new[0]))
            old_left.remove(o)
            new_left.remove(same_new[0])
    return pairs, old_left, new_left


def index(measures):
    """key -> Measure; a key twice in one file keeps the first (as report.py's pipeline_case)."""
    out = {}
    for m in measures:
        out.setdefault(m.key, m)
    return out


def verdict(old, new, floor):
    """(ratio new/old, noise, verdict) of two Measures with values."""
    noise = max([floor] + [s for s in (old.spread, new.spread) if s is not None])
    ratio = new.value / old.value
    # Times: higher is slower; frames per second: lower is slower.
    slow_ratio = 1 / ratio if old.higher_better else ratio
    if slow_ratio > 1 + noise:
        return ratio, noise, "slower"
    if 1 / slow_ratio > 1 + noise:
        return ratio, noise, "faster"
    return ratio, noise, "same"


def fmt_value(m):
    if m.value is None:
        return "failed" if m.error is not None else "-"
    return f"{m.value:.1f}" if m.unit == "fps" else report.fmt_ms(m.value)


def device_of(files, run):
    if run.ceilings and run.ceilings.get("device_name"):
        return run.ceilings["device_name"]
    for _, _, data in files:
        for c in data.get("cases", []) if isinstance(data.get("cases"), list) else []:
            if isinstance(c, dict) and c.get("device_name"):
                return c["device_name"]
    gpus = ((run.summary or {}).get("machine") or {}).get("gpus")
    return ", ".join(gpus) if gpus else "?"


def main(argv):
    parser = argparse.ArgumentParser(
        description="Compares two run-all.sh result folders: which element got slower beyond "
                    "noise. Always exits 0 (a report, not a gate), 2 on a usage error.")
    parser.add_argument("old", help="the earlier results folder")
    parser.add_argument("new", help="the later results folder")
    parser.add_argument("--noise", type=float, default=DEFAULT_NOISE,
                        help="smallest relative change taken as real (default 0.05); the "
                             "relative IQR of either run raises it per measurement")
    args = parser.parse_args(argv[1:])
    for folder in (args.old, args.new):
        if not pathlib.Path(folder).is_dir():
            parser.error(f"{folder} is not a folder")
    if args.noise < 0:
        parser.error("--noise must be 0 or more")

    old_files, old_run = load(args.old)
    new_files, new_run = load(args.new)
    pairs, only_old, only_new = pair_files(old_files, new_files)

    print(f"## Benchmarks: `{args.old}` (OLD) against `{args.new}` (NEW)\n")
    old_dev, new_dev = device_of(old_files, old_run), device_of(new_files, new_run)
    print(f"OLD device: {old_dev}; NEW device: {new_dev}."
          + ("" if old_dev == new_dev else " **Not the same device: differences are expected.**"))
    print(f"Verdict: slower when new > old x (1 + noise), faster when old > new x (1 + noise); "
          f"noise = max({args.noise:g}, relative IQR of OLD, of NEW).\n")

    results = []    # (table, file, label, old, new, ratio, noise, verdict)
    machine = []
    unmatched = []  # (table, file, "OLD" or "NEW", label)
    failed_new = []
    for (old_name, kind, old_data), (new_name, _, new_data) in pairs:
        shown = old_name if old_name == new_name else f"{old_name} / {new_name}"
        old_ms, new_ms = index(EXTRACT[kind](old_data)), index(EXTRACT[kind](new_data))
        for key, o in old_ms.items():
            n = new_ms.get(key)
            if n is None:
                if not o.machine:
                    unmatched.append((o.table, shown, "OLD", o.label))
                continue
            row = [o.table, shown, o, n, None, None, None]
            if o.value is not None and n.value is not None:
                row[4:] = verdict(o, n, args.noise)
            elif not o.machine and n.value is None and (n.error is not None or o.value):
                failed_new.append((o.table, o.label, n.error or "not measured"))
            (machine if o.machine else results).append(row)
        for key, n in new_ms.items():
            if key not in old_ms and not n.machine:
                unmatched.append((n.table, shown, "NEW", n.label))

    rank = lambda table: ORDER.index(table) if table in ORDER else len(ORDER)  # noqa: E731
    results.sort(key=lambda r: rank(r[0]))   # stable: file order within a table
    tables = sorted({(r[0], r[1]) for r in results} | {(u[0], u[1]) for u in unmatched},
                    key=lambda t: (rank(t[0]), t[1]))
    for table, shown in tables:
        rows = [r for r in results if r[0] == table and r[1] == shown]
        what = "frames per second" if table == "pipelines-launch" else (
            "aggregate frames per second of N streams" if table == "streams" else (
                "wall ms per frame" if table == "pipelines" else "kernel ms (median)"))
        print(f"### {table} (`{shown}`): {what}\n")
        if rows:
            print("| case | OLD | NEW | NEW / OLD | noise | verdict | note |")
            print("| --- | --- | --- | --- | --- | --- | --- |")
        for _, _, o, n, ratio, noise, v in rows:
            note = o.note if o.note == n.note else \
                f"{o.note} -> {n.note}" if o.note and n.note else \
                f"OLD {o.note}" if o.note else f"NEW {n.note}"
            if n.error is not None:
                note = (note + "; " if note else "") + f"NEW failed: {n.error}"
            print(f"| {o.label} | {fmt_value(o)} | {fmt_value(n)} | "
                  f"{'-' if ratio is None else f'{ratio:.3f}'} | "
                  f"{'-' if noise is None else f'{100 * noise:.1f}%'} | {v or 'not compared'} | "
                  f"{note} |")
        for side in ("OLD", "NEW"):
            left = [label for t, s, where, label in unmatched
                    if t == table and s == shown and where == side]
            if left:
                more = f"; and {len(left) - 12} more" if len(left) > 12 else ""
                print(f"\nOnly in {side}, not compared ({len(left)}): " +
                      "; ".join(left[:12]) + more + ".")
        print()

    if machine:
        print("### The machine: peers and ceilings (not counted below)\n")
        print("A peer or a ceiling much slower in NEW means the machine differed, not our code.\n")
        print("| measure | OLD ms | NEW ms | NEW / OLD | noise | verdict |")
        print("| --- | --- | --- | --- | --- | --- |")
        for _, _, o, n, ratio, noise, v in machine:
            print(f"| {o.label} | {fmt_value(o)} | {fmt_value(n)} | "
                  f"{'-' if ratio is None else f'{ratio:.3f}'} | "
                  f"{'-' if noise is None else f'{100 * noise:.1f}%'} | {v or 'not compared'} |")
        print()

    compared = [r for r in results if r[6]]
    count = {v: sum(1 for r in compared if r[6] == v) for v in ("slower", "faster", "same")}
    print(f"**{len(compared)} measurements compared: {count['slower']} slower, "
          f"{count['faster']} faster, {count['same']} same**\n")
    for table, _, o, n, ratio, noise, v in compared:
        if v == "slower":
            print(f"- slower: {table} {o.label}: {fmt_value(o)} -> {fmt_value(n)} "
                  f"{'fps' if o.unit == 'fps' else 'ms'} ({ratio:.3f}x, noise {100 * noise:.1f}%)")
    for table, label, error in failed_new:
        print(f"- failed or missing in NEW: {table} {label}: {error}")
    m_compared = [r for r in machine if r[6]]
    if m_compared:
        m_slow = sum(1 for r in m_compared if r[6] == "slower")
        m_fast = sum(1 for r in m_compared if r[6] == "faster")
        print(f"- machine check: {len(m_compared)} peer and ceiling figures, {m_slow} slower, "
              f"{m_fast} faster" + (" (the machine may have differed)" if m_slow else ""))
    if unmatched:
        print(f"- {len(unmatched)} cases in one folder only (listed under their tables)")
    for name, kind, _ in only_old:
        print(f"- file only in OLD: {name} ({kind})")
    for name, kind, _ in only_new:
        print(f"- file only in NEW: {name} ({kind})")
    for label, run in (("OLD", old_run), ("NEW", new_run)):
        for name, b in ((run.summary or {}).get("benchmarks") or {}).items():
            if b.get("exit"):
                print(f"- {label}: benchmark {name} exited with status {b['exit']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
