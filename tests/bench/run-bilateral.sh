#!/usr/bin/env bash
# gst-opencl: benchmark openclbilateral and its OpenCV peer in one run, into one JSON file.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/run-bilateral.sh [options] [-- bench_bilateral options]
#   --build DIR          build folder (default build-bench); configured and built when missing
#   --no-build           use DIR as it is (e.g. a carried build on another machine)
#   --sizes LIST         frame sizes for both, as bench_bilateral's --sizes (WxH[:frames],...)
#   --peer cpu|opencl    time cv2.bilateralFilter on the CPU (default) or through OpenCV's OpenCL
#   --peer-runs N        samples per size for the peer (default 50)
#   --no-peer            skip the peer
#   --with-peers         install python3-opencv with apt-get when cv2 is not importable
#   --tag TAG            results go to tests/bench/results/TAG.json (default: from the device)
#   --out PATH           write the results there instead
# Everything after `--` goes to bench_bilateral (--frames, --device, --modes, --warmup, ...).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/bench"
# Recorded in the results, relative to the project root, so it reproduces them anywhere.
command="tests/bench/run-bilateral.sh"
for arg in "$@"; do
  if [[ "$arg" =~ ^[A-Za-z0-9_./:,=+@-]+$ ]]; then command+=" $arg"; else command+=" $(printf '%q' "$arg")"; fi
done
build="$root/build-bench"
do_build=1
sizes="1280x720,1920x1080,3840x2160"
peer=cpu
peer_runs=50
with_peers=0
tag=""
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --no-build) do_build=0; shift ;;
    --sizes) sizes="$2"; shift 2 ;;
    --peer) peer="$2"; shift 2 ;;
    --peer-runs) peer_runs="$2"; shift 2 ;;
    --no-peer) peer=none; shift ;;
    --with-peers) with_peers=1; shift ;;
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
bench="$build/tests/bench/bench_bilateral"
[ -x "$bench" ] || { echo "no $bench: build first" >&2; exit 1; }
export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

# Other work on the machine skews CPU figures: record the load around the run.
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bench" --sizes "$sizes" --json "$work/bench.json" "$@"
bench_status=$?
[ -f "$work/bench.json" ] || { echo "bench_bilateral wrote no results" >&2; exit 1; }

peer_note=""
if [ "$peer" != none ]; then
  if ! python3 -c 'import cv2' 2>/dev/null && [ "$with_peers" = 1 ]; then
    echo "installing python3-opencv"
    sudo_cmd=""
    [ "$(id -u)" = 0 ] || sudo_cmd=sudo
    $sudo_cmd apt-get install -y -q python3-opencv >/dev/null ||
      { $sudo_cmd apt-get update -q >/dev/null && $sudo_cmd apt-get install -y -q python3-opencv >/dev/null; }
  fi
  # Debian's python3-opencv lives in the system interpreter; prefer it when `python3` lacks cv2.
  py=python3
  python3 -c 'import cv2' 2>/dev/null || { [ -x /usr/bin/python3 ] && py=/usr/bin/python3; }
  if "$py" -c 'import cv2' 2>/dev/null; then
    "$py" "$here/peer_opencv_bilateral.py" --backend "$peer" --sizes "$sizes" \
      --threads "$(nproc)" --runs "$peer_runs" --json "$work/peer.json" ||
      peer_note="the peer failed"
  else
    peer_note="cv2 is not importable (run with --with-peers to install python3-opencv)"
    echo "peer skipped: $peer_note"
  fi
fi

python3 - "$work" "$tag" "$out" "$here/results" "$peer_note" "$command" "$load_before" <<'PY'
import json, os, platform, re, subprocess, sys

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
os_name = ""
try:
    with open("/etc/os-release") as f:
        os_name = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line) \
            .get("PRETTY_NAME", "").strip('"')
except OSError:
    pass
merged = {
    "machine": {"tag": tag, "os": os_name, "kernel": platform.release(), "cpu": cpu_model(),
                "cores": os.cpu_count(), "gpus": gpu_names(), "opencl_device": device,
                "loadavg_before": load_before, "loadavg_after": load_after},
    "command": command,
    "openclbilateral": bench,
    "peer": peer,
}
if peer is None and peer_note:
    merged["peer_skipped"] = peer_note
path = out or os.path.join(results_dir, tag + ".json")
os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
with open(path, "w") as f:
    json.dump(merged, f, indent=2)
    f.write("\n")

print(f"\n{'size':<11} {'openclbilateral kernel ms':>26} {'wall ms':>9} {'OpenCV ' + (peer or {}).get('backend', '-') + ' ms':>16}")
peer_by_size = {(c["width"], c["height"]): c for c in (peer or {}).get("cases", [])}
for case in bench["cases"]:
    size = (case["width"], case["height"])
    p = peer_by_size.get(size)
    print(f"{case['width']}x{case['height']:<6} {case['kernel_ms']['median']:>26.3f} "
          f"{case['wall_ms']['median']:>9.3f} {p['ms']['median'] if p else float('nan'):>16.3f}")
print(f"device: {device}; peer: {(peer or {}).get('device', peer_note or '-')}")
print(f"wrote {path}")
PY
merge_status=$?
[ $merge_status = 0 ] || exit $merge_status
exit $bench_status
