#!/usr/bin/env python3
# gst-opencl: prints the Markdown tables of docs/performance.md from tests/bench/results/*.json.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/report.py [results.json ...]   (default: every file in tests/bench/results)
# Each table says which file and which command its figures come from.
import json
import pathlib
import sys


def fmt_ms(value):
    if value is None:
        return "-"
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def bilateral(path, data):
    cases = data["openclbilateral"]["cases"]
    peer = data.get("peer") or {}
    peer_cases = {(c["width"], c["height"]): c["ms"]["median"] for c in peer.get("cases", [])}
    peer_label = peer.get("peer", "peer")
    if peer.get("backend"):
        peer_label += f" ({peer['backend']}, d={peer.get('d')})"
    machine = data.get("machine", {})
    print(f"**openclbilateral**, RGBA, radius {data['openclbilateral'].get('radius')}, "
          f"on {cases[0].get('device_name', '?')}; "
          f"machine: {machine.get('cpu', '?')}, {machine.get('cores', '?')} cores"
          + (f", {', '.join(machine['gpus'])}" if machine.get("gpus") else "") + ".")
    print(f"From `{path}`, made by `{data.get('command', '?')}`.\n")
    print(f"| size | mode | frames | kernel ms (median) | kernel IQR ms | wall ms per frame | "
          f"{peer_label} ms | peer / kernel |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for c in cases:
        if not c.get("ok"):
            print(f"| {c['width']}x{c['height']} | {c['mode']} | failed: {c.get('error')} |"
                  " | | | | |")
            continue
        kernel = c["kernel_ms"]["median"]
        peer_ms = peer_cases.get((c["width"], c["height"])) if c["mode"] == "color" else None
        ratio = f"{peer_ms / kernel:.2f}x" if peer_ms else "-"
        print(f"| {c['width']}x{c['height']} | {c['mode']} | {c['frames']} | {fmt_ms(kernel)} | "
              f"{fmt_ms(c['kernel_ms']['iqr'])} | {fmt_ms(c['wall_ms']['median'])} | "
              f"{fmt_ms(peer_ms)} | {ratio} |")
    print()


def histogram(path, data):
    cases = data["openclhistogram"]["cases"]
    peer = data.get("peer") or {}
    peer_cases = {}
    for c in peer.get("cases", []):
        peer_cases[(c["width"], c["height"], c["content"], c["peer"], c["variant"])] = \
            c["ms"]["median"]
    columns = sorted({(p, v) for (_, _, _, p, v) in peer_cases})
    machine = data.get("machine", {})
    print(f"**openclhistogram**, {data['openclhistogram'].get('format', 'RGBA')}, "
          f"{data['openclhistogram'].get('bins')} bins, on {cases[0].get('device_name', '?')}; "
          f"machine: {machine.get('cpu', '?')}, {machine.get('cores', '?')} cores"
          + (f", {', '.join(machine['gpus'])}" if machine.get("gpus") else "")
          + (f"; load average {machine['loadavg_before']} before, {machine['loadavg_after']} after"
             if machine.get("loadavg_before") else "") + ".")
    print(f"From `{path}`, made by `{data.get('command', '?')}`.\n")
    header = "| size | content | frames | kernel ms (median) | kernel IQR ms | wall ms per frame |"
    rule = "| --- | --- | --- | --- | --- | --- |"
    for p, v in columns:
        header += f" {p} {v} ms |"
        rule += " --- |"
    print(header)
    print(rule)
    for c in cases:
        if not c.get("ok"):
            print(f"| {c['width']}x{c['height']} | {c['content']} | failed: {c.get('error')} |"
                  " | | |" + " |" * len(columns))
            continue
        line = (f"| {c['width']}x{c['height']} | {c['content']} | {c['frames']} | "
                f"{fmt_ms(c['kernel_ms']['median'])} | {fmt_ms(c['kernel_ms']['iqr'])} | "
                f"{fmt_ms(c['wall_ms']['median'])} |")
        for p, v in columns:
            line += f" {fmt_ms(peer_cases.get((c['width'], c['height'], c['content'], p, v)))} |"
        print(line)
    print()


def machine_text(machine):
    return (f"machine: {machine.get('cpu', '?')}, {machine.get('cores', '?')} cores"
            + (f"; load average {machine['loadavg_before']} before, {machine['loadavg_after']} after"
               if machine.get("loadavg_before") else ""))


def convolve(path, data):
    run = data["convolve"]
    cases = run["cases"]
    device = next((c["device_name"] for c in cases if c.get("device_name")), "?")
    print(f"**openclmulticonvolve / openclconvolve3d** on {device}; "
          f"{machine_text(run.get('machine', {}))}.")
    print(f"From `{path}`, made by `{data.get('command', '?')}`. Useful work: "
          f"{run.get('useful_flop_definition', '?')} floating-point operations, "
          f"S = {run.get('volume')}, K = {run.get('kernel_size')}.\n")
    volume = [c for c in cases if c.get("num_filters")]
    if volume:
        print("| case | volumes | kernel ms (median) | kernel IQR ms | useful TFLOP/s |")
        print("| --- | --- | --- | --- | --- |")
        for c in volume:
            if not c.get("ok"):
                print(f"| {c['name']} | failed: {c.get('error')} | | | |")
                continue
            k = c["kernel_ms"]
            print(f"| {c['name']} | {len(c['kernel_ms_samples'])} | {fmt_ms(k['median'])} | "
                  f"{fmt_ms(k['q3'] - k['q1'])} | {c['tflops_useful']:.4g} |")
        print()
    video = [c for c in cases if not c.get("num_filters")]
    if video:
        print("| case | frames | kernel ms (median) | kernel IQR ms | frames/s (kernel) | "
              "frames/s (wall) |")
        print("| --- | --- | --- | --- | --- | --- |")
        for c in video:
            if not c.get("ok"):
                print(f"| {c['name']} | failed: {c.get('error')} | | | | |")
                continue
            k = c["kernel_ms"]
            print(f"| {c['name']} | {len(c['kernel_ms_samples'])} | {fmt_ms(k['median'])} | "
                  f"{fmt_ms(k['q3'] - k['q1'])} | {c['fps_kernel']:.1f} | {c['fps_wall']:.1f} |")
        print()


def peer_torch_conv3d(path, data):
    run = data["peer_torch_conv3d"]
    print(f"**{run.get('peer')}** (cuDNN {run.get('cudnn', '?')}, torch {run.get('torch', '?')}) "
          f"on {run.get('device', '?')}, S = {run.get('volume')}, K = {run.get('kernel_size')}.")
    print(f"From `{path}`, made by `{data.get('command', '?')}`.\n")
    if run.get("error"):
        print(f"Not measured: {run['error']}.\n")
        return
    print("| mode | N | median ms | useful TFLOP/s |")
    print("| --- | --- | --- | --- |")
    for c in run["cases"]:
        print(f"| {c['mode']} | {c['num_filters']} | {fmt_ms(c['median_ms'])} | "
              f"{c['tflops_useful']:.4g} |")
    print()


REPORTERS = {"openclbilateral": bilateral, "openclhistogram": histogram, "convolve": convolve,
             "peer_torch_conv3d": peer_torch_conv3d}


def main(argv):
    root = pathlib.Path(__file__).resolve().parent
    paths = [pathlib.Path(p) for p in argv[1:]] or sorted((root / "results").glob("*.json"))
    for path in paths:
        data = json.loads(path.read_text())
        if "benchmark" in data:  # a benchmark program's own JSON, without the wrapper
            data = {data["benchmark"]: data, "command": data.get("command")}
        shown = path.resolve()
        try:
            shown = shown.relative_to(root.parent.parent)
        except ValueError:
            pass
        for key, reporter in REPORTERS.items():
            if key in data:
                reporter(shown, data)


if __name__ == "__main__":
    main(sys.argv)
