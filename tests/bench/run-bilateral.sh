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
source "$(dirname "$0")/lib.sh"
command=$(bench_command run-bilateral.sh "$@")
build="$bench_root/build-bench" do_build=1 tag="" out="" passed=()
sizes="1280x720,1920x1080,3840x2160" peer=cpu peer_runs=50 with_peers=0
bench_parse_options "--build=build --no-build=do_build:0 --sizes=sizes --peer=peer
  --peer-runs=peer_runs --no-peer=peer:none --with-peers=with_peers:1 --tag=tag --out=out
  --=passed" "$@"
set -- "${passed[@]}"
bench_prepare bench_bilateral

bench_run_into "$work/bench.json" "$sizes" "$@"
bench_status=$?

peer_note=""
if [ "$peer" != none ]; then
  if ! python3 -c 'import cv2' 2>/dev/null && [ "$with_peers" = 1 ]; then
    echo "installing python3-opencv"
    sudo_cmd=""
    [ "$(id -u)" = 0 ] || sudo_cmd=sudo
    $sudo_cmd apt-get install -y -q python3-opencv >/dev/null ||
      { $sudo_cmd apt-get update -q >/dev/null && $sudo_cmd apt-get install -y -q python3-opencv >/dev/null; }
  fi
  py=$(bench_python_with cv2)
  if "$py" -c 'import cv2' 2>/dev/null; then
    "$py" "$bench_here/peer_opencv_bilateral.py" --backend "$peer" --sizes "$sizes" \
      --threads "$(nproc)" --runs "$peer_runs" --json "$work/peer.json" ||
      peer_note="the peer failed"
  else
    peer_note="cv2 is not importable (run with --with-peers to install python3-opencv)"
    echo "peer skipped: $peer_note"
  fi
fi

path=$(bench_write_results openclbilateral "" os kernel cpu cores gpus) || exit 1
python3 - "$path" "$peer_note" <<'PY' || exit
import json, sys

path, peer_note = sys.argv[1:3]
with open(path) as f:
    merged = json.load(f)
bench, peer = merged["openclbilateral"], merged["peer"]
device = merged["machine"]["opencl_device"]
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
exit $bench_status
