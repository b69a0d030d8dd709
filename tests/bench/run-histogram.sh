#!/usr/bin/env bash
# gst-opencl: benchmark openclhistogram and its peers (cv2.calcHist on the CPU, torch.bincount
# on a CUDA GPU when torch has one) in one run, into one JSON file: size by size, the element
# (every variant asked for) and then the peers.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/run-histogram.sh [options] [-- bench_histogram options]
#   --build DIR      build folder (default build-bench); configured and built when missing
#   --no-build       use DIR as it is (e.g. a carried build on another machine)
#   --sizes LIST     frame sizes for all, as bench_histogram's --sizes (default
#                    1280x720,1920x1080,3840x2160)
#   --peer-runs N    samples per case for the peers (default 50)
#   --no-peer        skip the peers
#   --with-peers     let peer_histogram.py apt-get install python3-opencv when cv2 is missing
#   --tag TAG        results go to tests/bench/results/histogram-TAG.json (default: from the device)
#   --out PATH       write the results there instead
# Everything after `--` goes to bench_histogram (--frames, --device, --contents, --bins, ...).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/bench"
command="tests/bench/run-histogram.sh"
for arg in "$@"; do
  if [[ "$arg" =~ ^[A-Za-z0-9_./:,=+@-]+$ ]]; then command+=" $arg"; else command+=" $(printf '%q' "$arg")"; fi
done
build="$root/build-bench"
do_build=1
sizes="1280x720,1920x1080,3840x2160"
peer_runs=50
peer=1
install_flag=()
tag=""
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --no-build) do_build=0; shift ;;
    --sizes) sizes="$2"; shift 2 ;;
    --peer-runs) peer_runs="$2"; shift 2 ;;
    --no-peer) peer=0; shift ;;
    --with-peers) install_flag=(--install); shift ;;
    --tag) tag="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

if [ "$do_build" = 1 ]; then
  if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$root" -Dtests=disabled -Dbench=enabled >/dev/null || exit 1
  fi
  ninja -C "$build" >/dev/null || exit 1
fi
bench="$build/tests/bench/bench_histogram"
[ -x "$bench" ] || { echo "no $bench: build first" >&2; exit 1; }
export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Debian's python3-opencv lives in the system interpreter; use it when `python3` lacks cv2
# (torch, where there is one, is usually in `python3`: try that first).
py=python3
if ! python3 -c 'import cv2' 2>/dev/null && ! python3 -c 'import torch' 2>/dev/null &&
    [ -x /usr/bin/python3 ]; then
  py=/usr/bin/python3
fi

# One size at a time, the element and then its peers: on a shared machine the two are then
# measured minutes apart at most, under about the same load.
bench_status=0
index=0
IFS=, read -ra size_list <<< "$sizes"
for size in "${size_list[@]}"; do
  index=$((index + 1))
  "$bench" --sizes "$size" --json "$work/bench-$index.json" "$@" || bench_status=1
  [ -f "$work/bench-$index.json" ] || { echo "bench_histogram wrote no results" >&2; exit 1; }
  if [ "$peer" = 1 ]; then
    "$py" "$here/peer_histogram.py" --sizes "$size" --runs "$peer_runs" --threads "$(nproc)" \
      "${install_flag[@]}" --json "$work/peer-$index.json" || echo "the peers failed" >&2
  fi
done

python3 - "$work" "$tag" "$out" "$here/results" "$command" "$load_before" <<'PY'
import json, os, platform, re, subprocess, sys

work, tag, out, results_dir, command, load_before = sys.argv[1:7]

def merged_runs(prefix):
    """The runs of one program, one file per size, as one: the first file's fields, every
    file's cases in order."""
    merged = None
    index = 1
    while os.path.exists(os.path.join(work, f"{prefix}-{index}.json")):
        with open(os.path.join(work, f"{prefix}-{index}.json")) as f:
            part = json.load(f)
        if merged is None:
            merged = part
        else:
            merged["cases"].extend(part.get("cases", []))
            merged.setdefault("skipped", {}).update(part.get("skipped", {}))
        index += 1
    return merged

bench = merged_runs("bench")
peer = merged_runs("peer")

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()

def gpu_names():
    try:
        text = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                               "--format=csv,noheader"], capture_output=True, text=True,
                              timeout=30).stdout
        return [line.strip() for line in text.splitlines() if line.strip()]
    except (OSError, subprocess.SubprocessError):
        return []

device = next((c["device_name"] for c in bench["cases"] if c.get("device_name")), "")
if not tag:
    if "Portable Computing Language" in device:
        tag = "cpu-pocl"
    else:
        name = device.split(" (")[0].lower()
        tag = "gpu-" + (re.sub(r"[^a-z0-9]+", "-", name).strip("-") or "unknown")
load_after = ""
try:
    with open("/proc/loadavg") as f:
        load_after = " ".join(f.read().split()[:3])
except OSError:
    pass
merged = {
    "machine": {"tag": tag, "kernel": platform.release(), "cpu": cpu_model(),
                "cores": os.cpu_count(), "gpus": gpu_names(), "opencl_device": device,
                "loadavg_before": load_before, "loadavg_after": load_after},
    "command": command,
    "openclhistogram": bench,
    "peer": peer,
}
path = out or os.path.join(results_dir, "histogram-" + tag + ".json")
os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
with open(path, "w") as f:
    json.dump(merged, f, indent=2)
    f.write("\n")

peers = {}
for case in (peer or {}).get("cases", []):
    peers[(case["width"], case["height"], case["content"], case["peer"], case["variant"])] = \
        case["ms"]["median"]
columns = sorted({(p, v) for (_, _, _, p, v) in peers})
header = f"{'variant':<22} {'size':<11} {'content':<11} {'kernel ms':>10} {'wall ms':>9}"
for p, v in columns:
    header += f" {p + ' ' + v:>20}"
print("\n" + header)
for case in bench["cases"]:
    variant = case.get("variant", "tuned")
    if variant == "tuned":
        variant += ":" + case.get("variant_used", "")
    line = (f"{variant:<22} {case['width']}x{case['height']:<6} {case['content']:<11} "
            f"{case['kernel_ms']['median']:>10.3f} {case['wall_ms']['median']:>9.3f}")
    for p, v in columns:
        value = peers.get((case["width"], case["height"], case["content"], p, v))
        line += f" {value if value is not None else float('nan'):>20.3f}"
    print(line)
print(f"device: {device}")
print(f"wrote {path}")
PY
merge_status=$?
[ $merge_status = 0 ] || exit $merge_status
exit $bench_status
