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
source "$(dirname "$0")/lib.sh"
command=$(bench_command run-sort.sh "$@")
build="$bench_root/build-bench" do_build=1 tag="" out="" passed=()
sizes="20,21,22,23,24,25" peer=1 peer_runs=20
bench_parse_options "--build=build --no-build=do_build:0 --sizes=sizes --no-peer=peer:0
  --peer-runs=peer_runs --tag=tag --out=out --=passed" "$@"
set -- "${passed[@]}"
bench_prepare bench_sort

bench_run_into "$work/bench.json" "$sizes" "$@"
bench_status=$?

peer_note=""
if [ "$peer" = 1 ]; then
  if bench_has_cuda_torch; then
    python3 "$bench_here/peer_torch_sort.py" --sizes "$sizes" --runs "$peer_runs" \
      --json "$work/peer.json" || peer_note="the peer failed"
  else
    peer_note="torch with a CUDA device is not available here"
    echo "peer skipped: $peer_note"
  fi
fi

path=$(bench_write_results device_sort sort- kernel cpu cores) || exit 1
python3 - "$path" "$peer_note" <<'PY' || exit
import json, sys

path, peer_note = sys.argv[1:3]
with open(path) as f:
    merged = json.load(f)
bench, peer = merged["device_sort"], merged["peer"]
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
print(f"device: {merged['machine']['opencl_device']}; "
      f"peer: {(peer or {}).get('device', peer_note or '-')}")
print(f"wrote {path}")
PY
exit $bench_status
