#!/usr/bin/env bash
# gst-opencl: the sort table (std::sort, the device sort, torch.sort) in one run, one JSON file.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/run-sort.sh [options] [-- bench_sort options]
#   --build DIR      build folder (default build-bench); configured and built when missing
#   --no-build       use DIR as it is (e.g. a carried build on another machine)
#   --sizes LIST     log2 sizes for both (default 20,21,22,23,24,25)
#   --no-peer        skip torch.sort (it is skipped anyway when torch has no CUDA device, and
#                    left out of the table for a batch, bench_sort --rows)
#   --peer-runs N    torch.sort samples per size (default 20)
#   --tag TAG        results go to tests/bench/results/sort-TAG.json (default: from the device)
#   --out PATH       write the results there instead
# Everything after `--` goes to bench_sort (--device, --runs, --warmup, --cpu-runs, ...).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/bench"
command="tests/bench/run-sort.sh"
for arg in "$@"; do
  if [[ "$arg" =~ ^[A-Za-z0-9_./:,=+@-]+$ ]]; then command+=" $arg"; else command+=" $(printf '%q' "$arg")"; fi
done
build="$root/build-bench"
do_build=1
sizes="20,21,22,23,24,25"
peer=1
peer_runs=20
tag=""
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --no-build) do_build=0; shift ;;
    --sizes) sizes="$2"; shift 2 ;;
    --no-peer) peer=0; shift ;;
    --peer-runs) peer_runs="$2"; shift 2 ;;
    --tag) tag="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

if [ "$do_build" = 1 ]; then
  if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$root" -Dtests=disabled -Dbench=enabled >/dev/null || exit 1
  fi
  ninja -C "$build" >/dev/null || exit 1
fi
bench="$build/tests/bench/bench_sort"
[ -x "$bench" ] || { echo "no $bench: build first" >&2; exit 1; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bench" --sizes "$sizes" --json "$work/bench.json" "$@"
bench_status=$?
[ -f "$work/bench.json" ] || { echo "bench_sort wrote no results" >&2; exit 1; }

peer_note=""
if [ "$peer" = 1 ]; then
  if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    python3 "$here/peer_torch_sort.py" --sizes "$sizes" --runs "$peer_runs" \
      --json "$work/peer.json" || peer_note="the peer failed"
  else
    peer_note="torch with a CUDA device is not available here"
    echo "peer skipped: $peer_note"
  fi
fi

python3 - "$work" "$tag" "$out" "$here/results" "$peer_note" "$command" "$load_before" <<'PY'
import json, os, platform, re, sys

work, tag, out, results_dir, peer_note, command, load_before = sys.argv[1:8]
with open(os.path.join(work, "bench.json")) as f:
    bench = json.load(f)
peer = None
if os.path.exists(os.path.join(work, "peer.json")):
    with open(os.path.join(work, "peer.json")) as f:
        peer = json.load(f)

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()

device = bench.get("device_name", "")
if not tag:
    if "Portable Computing Language" in device:
        tag = "cpu-pocl"
    else:
        tag = "gpu-" + (re.sub(r"[^a-z0-9]+", "-", device.split(" (")[0].lower()).strip("-") or "unknown")
load_after = ""
try:
    with open("/proc/loadavg") as f:
        load_after = " ".join(f.read().split()[:3])
except OSError:
    pass
merged = {
    "machine": {"tag": tag, "kernel": platform.release(), "cpu": cpu_model(),
                "cores": os.cpu_count(), "opencl_device": device,
                "loadavg_before": load_before, "loadavg_after": load_after},
    "command": command,
    "device_sort": bench,
    "peer": peer,
}
if peer is None and peer_note:
    merged["peer_skipped"] = peer_note
path = out or os.path.join(results_dir, "sort-" + tag + ".json")
os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
with open(path, "w") as f:
    json.dump(merged, f, indent=2)
    f.write("\n")

peer_by_size = {s["log2"]: s for s in (peer or {}).get("sizes", [])}
# A batch (--rows) has no peer: torch.sort timed one row.
if bench.get("rows", 1) != 1:
    peer_by_size = {}
names = list(bench["sizes"][0].get("algorithms", {}).keys()) if bench["sizes"] else []
print(f"\n{'N':>10} {'std::sort ms':>13} {'device sort ms':>15} " +
      "".join(f"{name + ' ms':>12}" for name in names) + f" {'torch.sort ms':>14}")
for s in bench["sizes"]:
    p = peer_by_size.get(s["log2"])
    torch_ms = f"{p['ms']['median']:.3f}" if p else "-"
    per_algorithm = "".join(f"{s['algorithms'][name]['kernel_ms']['median']:>12.3f}"
                            for name in names)
    print(f"{s['count']:>10} {s['std_sort_ms']['median']:>13.3f} {s['kernel_ms']['median']:>15.3f} "
          f"{per_algorithm} {torch_ms:>14}")
print(f"device: {device}; peer: {(peer or {}).get('device', peer_note or '-')}")
print(f"wrote {path}")
PY
merge_status=$?
[ $merge_status = 0 ] || exit $merge_status
exit $bench_status
