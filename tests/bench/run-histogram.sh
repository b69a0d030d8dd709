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
source "$(dirname "$0")/lib.sh"
command=$(bench_command run-histogram.sh "$@")
build="$bench_root/build-bench" do_build=1 tag="" out="" passed=()
sizes="1280x720,1920x1080,3840x2160" peer=1 peer_runs=50 with_peers=0
bench_parse_options "--build=build --no-build=do_build:0 --sizes=sizes --peer-runs=peer_runs
  --no-peer=peer:0 --with-peers=with_peers:1 --tag=tag --out=out --=passed" "$@"
set -- "${passed[@]}"
install_flag=()
[ "$with_peers" = 1 ] && install_flag=(--install)
# On a CPU device OpenCV's calcHist is the comparison the targets name: its absence is a failure,
# not a skip.
for arg in "$@"; do
  case "$arg" in cpu|--device=cpu) install_flag+=(--require-cv2) ;; esac
done

bench_prepare bench_histogram
# cv2.calcHist and, where there is one, torch with CUDA (usually in `python3`: tried first).
py=$(bench_python_with cv2 torch)

# One size at a time, the element and then its peers: on a shared machine the two are then
# measured minutes apart at most, under about the same load.
bench_status=0
index=0
IFS=, read -ra size_list <<< "$sizes"
for size in "${size_list[@]}"; do
  index=$((index + 1))
  bench_run_into "$work/bench-$index.json" "$size" "$@" || bench_status=1
  if [ "$peer" = 1 ]; then
    "$py" "$bench_here/peer_histogram.py" --sizes "$size" --runs "$peer_runs" --threads "$(nproc)" \
      "${install_flag[@]}" --json "$work/peer-$index.json" ||
      { echo "the peers failed" >&2; bench_status=1; }
  fi
done

# The runs of each program, one file per size, as one: the first file's fields, every file's
# cases in order.
python3 - "$work" <<'PY' || exit
import json, os, sys

work = sys.argv[1]
for prefix in ("bench", "peer"):
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
    if merged is not None:
        with open(os.path.join(work, f"{prefix}.json"), "w") as f:
            json.dump(merged, f)
PY
path=$(bench_write_results openclhistogram histogram- kernel cpu cores gpus) || exit 1
python3 - "$path" <<'PY' || exit
import json, sys

path = sys.argv[1]
with open(path) as f:
    merged = json.load(f)
bench, peer = merged["openclhistogram"], merged["peer"]
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
print(f"device: {merged['machine']['opencl_device']}")
print(f"wrote {path}")
PY
exit $bench_status
