#!/usr/bin/env bash
# gst-opencl: the device sort's check on a GPU machine, in one command: the sort tests on the
# GPU, bench_sort with each sort forced (bitonic, radix, onesweep) on one row of 2^12 .. 2^26
# int32 keys, torch.sort (CUB) on the same sizes, the onesweep sort in other tile shapes, and
# batches of rows. Prints a table of median kernel ms and torch.sort / ours; everything goes to
# OUT_DIR. Needs no compiler: the plugin and programs come built (see docs/testing.md).
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/sort-gpu-check.sh BUILD_DIR OUT_DIR
#   BUILD_DIR holds gst/ (the plugin), tests/test_sort*, tests/bench/bench_sort.
#   SORT_CHECK_SIZES (default 12..26) and SORT_CHECK_SHAPES (onesweep tiles, default
#   "256x4 256x8 256x16 256x32 128x16") and SORT_CHECK_SPLIT_SHAPES (the same with 4-bit split
#   steps, default "256x16 256x8 256x4") narrow it down (a shape the device cannot run is
#   reported and skipped); SORT_CHECK_DEVICE (default gpu)
#   is bench_sort's --device (cpu to try the script on PoCL). Takes about three minutes on an H100.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: sort-gpu-check.sh BUILD_DIR OUT_DIR}" && pwd)
out=${2:?usage: sort-gpu-check.sh BUILD_DIR OUT_DIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
sizes=${SORT_CHECK_SIZES:-12,13,14,15,16,17,18,19,20,21,22,23,24,25,26}
shapes=${SORT_CHECK_SHAPES:-256x4 256x8 256x16 256x32 128x16}
split_shapes=${SORT_CHECK_SPLIT_SHAPES:-256x16 256x8 256x4}
device=${SORT_CHECK_DEVICE:-gpu}
bench=$build/tests/bench/bench_sort
status=0
started=$(date +%s)
step () { echo; echo "== $* ($(($(date +%s) - started)) s)"; }

{
  echo "command: tests/bench/sort-gpu-check.sh $*"
  date -u
  uptime
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>/dev/null
} | tee "$out/machine.txt"

step "sort tests on the GPU (tests/gpu-suite.sh)"
GPU_SUITE_LOGS=$out/test-logs timeout 100 "$here/../gpu-suite.sh" "$build" sort sort_layer \
  2>&1 | tee "$out/tests.txt" || status=1

step "bench_sort, one row, each sort forced"
timeout 70 "$bench" --device "$device" --sizes "$sizes" --algorithms bitonic,radix,onesweep \
  --no-cpu --runs 20 --warmup 3 --per-launch --json "$out/bench.json" 2>&1 \
  | tee "$out/bench.txt" || status=1

step "torch.sort (CUB)"
timeout 40 python3 "$here/peer_torch_sort.py" --sizes "$sizes" --runs 20 \
  --json "$out/peer.json" 2>&1 | tee "$out/peer.txt" || status=1

# time_shape NAME ARGS...: bench_sort on the onesweep sort alone, into onesweep-NAME.*; a shape
# the device refuses (work-group size, local memory) is reported, not counted as a failure.
time_shape () {
  local name=$1
  shift
  timeout 20 "$bench" --device "$device" --algorithms onesweep --no-cpu --runs 10 --warmup 2 \
    --json "$out/onesweep-$name.json" "$@" >"$out/onesweep-$name.txt" 2>&1
  local result=$?
  if grep -q "error: radix sort shape" "$out/onesweep-$name.txt"; then
    echo "$name: skipped: $(grep "error:" "$out/onesweep-$name.txt")"
    return
  fi
  [ $result -eq 0 ] || status=1
  grep -E "^[0-9]|error" "$out/onesweep-$name.txt" | sed "s/^/$name: /"
}

step "onesweep tile shapes"
for shape in $shapes; do
  time_shape "$shape" --sizes 14,15,16,17,18,19,20,21,22,23,24 --onesweep-shape "$shape"
done

step "onesweep tile shapes, 4-bit split steps"
for shape in $split_shapes; do
  time_shape "$shape-s4" --sizes 14,16,18,20,22,24 --onesweep-shape "$shape" --split-bits 4
done

step "batches of 1080 rows"
timeout 25 "$bench" --device "$device" --sizes 8,10,11,12,13,14 --rows 1080 \
  --algorithms bitonic,radix,onesweep --no-cpu --runs 10 --warmup 2 \
  --json "$out/batch.json" 2>&1 | tee "$out/batch.txt" || status=1

step "summary"
python3 - "$out" <<'PY' 2>&1 | tee "$out/summary.txt" || status=1
import json, os, sys

out = sys.argv[1]
def load(name):
    path = os.path.join(out, name)
    return json.load(open(path)) if os.path.exists(path) else None

bench, peer = load("bench.json"), load("peer.json")
peer_ms = {s["log2"]: s["ms"]["median"] for s in (peer or {}).get("sizes", [])}
if bench:
    names = list(bench["sizes"][0]["algorithms"].keys())
    print(f"one row, median kernel ms; torch/x = torch.sort ms / ours (>= 1: ours as fast)")
    print(f"{'log2':>4} " + "".join(f"{n:>10}" for n in names) +
          f" {'chosen':>9} {'torch':>8} {'torch/chosen':>13} {'torch/best':>11}  correct")
    for s in bench["sizes"]:
        ms = {n: s["algorithms"][n]["kernel_ms"]["median"] for n in names}
        best = min(ms.values())
        t = peer_ms.get(s["log2"])
        ratio = lambda v: f"{t / v:.2f}x" if t and v else "-"
        print(f"{s['log2']:>4} " + "".join(f"{ms[n]:>10.3f}" for n in names) +
              f" {s['automatic']:>9} {t if t else float('nan'):>8.3f} "
              f"{ratio(ms[s['automatic']]):>13} {ratio(best):>11}  {s['correct']}")
for name in sorted(os.listdir(out)):
    if name.startswith("onesweep-") and name.endswith(".json"):
        data = load(name)
        print(f"{name[9:-5]:>8}: " + " ".join(
            f"2^{s['log2']} {s['algorithms']['onesweep']['kernel_ms']['median']:.3f}"
            f"{'' if s['correct'] else ' WRONG'}" for s in data["sizes"]))
batch = load("batch.json")
if batch:
    print("1080 rows: " + "; ".join(
        f"2^{s['log2']}: " + " ".join(f"{n} {a['kernel_ms']['median']:.3f}"
                                       for n, a in s["algorithms"].items()) +
        f" (chosen {s['automatic']}{'' if s['correct'] else ', WRONG'})"
        for s in batch["sizes"]))
PY
echo "done in $(($(date +%s) - started)) s, status $status"
exit $status
